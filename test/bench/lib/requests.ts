/**
 * The requests a load process sends, by kind, built inside the load process for each request:
 * signed the way a merchant backend signs (shared `signRequest`), with a `_t` that no other request
 * of the run uses, so the service's replay guard never refuses an identical body.
 */
import { encodeQuery, signRequest } from '@kit/shared';

export interface Creds {
  appId: string;
  appSecret: string;
}

export type RequestKind =
  | { kind: 'bare' }
  | { kind: 'create'; subMerchantId: string }
  | { kind: 'read'; prepayIds: string[] }
  | { kind: 'upload'; tag: string; items: number }
  | { kind: 'lookup'; body: string }
  /** The same request every time, as given (the notification floor's). */
  | { kind: 'fixed'; request: BuiltRequest };

export interface BuiltRequest {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

/**
 * Signature timestamps for one load process: strictly increasing in steps of `step` from `from`
 * (several processes of one run take different residues), never further back than 250 s, so they
 * stay inside the service's ±300 s window however many requests a second are sent.
 */
export class SignatureClock {
  private last: number;
  constructor(
    from: number,
    private readonly step: number,
  ) {
    this.last = from - step;
  }
  next(nowMs = Date.now()): number {
    let t = this.last + this.step;
    const floor = nowMs - 250_000;
    if (t < floor) t += Math.ceil((floor - t) / this.step) * this.step;
    return (this.last = t);
  }
  get latest(): number {
    return this.last;
  }
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Returns a builder of the n-th request of a kind. */
export function requestBuilder(spec: RequestKind, creds: Creds, clock: SignatureClock): (n: number) => BuiltRequest {
  const signed = (method: string, path: string, query: Record<string, string> | undefined, body?: string): BuiltRequest => {
    const q = signRequest({ method, path, query, body }, creds, clock.next());
    return { method, path: `${path}?${encodeQuery(q)}`, body, headers: body === undefined ? undefined : JSON_HEADERS };
  };
  switch (spec.kind) {
    case 'bare':
      return () => ({ method: 'GET', path: '/bare' });
    case 'create': {
      const body = JSON.stringify({ subMerchantId: spec.subMerchantId, totalAmount: '12.34', orderId: null });
      return () => signed('POST', '/submerchant-pay/', undefined, body);
    }
    case 'read':
      return (n) => signed('GET', `/submerchant-pay/prePay/${spec.prepayIds[n % spec.prepayIds.length]}`, { waitForFinish: '0' });
    case 'upload':
      return (n) => {
        const items = [];
        for (let i = 0; i < spec.items; i++) items.push({ type: 'record', args: { id: `${spec.tag}-${n}-${i}`, sku: 'A-1001', qty: i, note: 'bench' } });
        return signed('POST', '/common-chain-upload/', undefined, JSON.stringify({ items }));
      };
    case 'lookup':
      return () => signed('POST', '/common-chain-upload/fetchOnChainIds', undefined, spec.body);
    case 'fixed':
      return () => spec.request;
  }
}
