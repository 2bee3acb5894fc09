/**
 * What the mini-program router does for a payer, by the front-end gateways' rule
 * (`frontends/README.md`): like a merchant backend it calls this service's public API through the
 * typed client (4.2 detail, 4.4 mini-program payment arguments), signed as the app that owns the
 * order's sub-merchant; it reads from the services what the API has no call for (which app that
 * is, the order's items) and guards the payer's login with the service's brute-force limit.
 */
import { KitApiError, KitError, KitNetworkError, PAY_VERSION, readOrderItems, type KitClient, type PrepayDetail } from '@kit/shared';
import type { MpOrder, MpPayResponse } from '@kit/shared/api/mp';
import type { Services } from '../../services';
import type { SelfClients } from '../self-client';
import type { PayerLogin } from './payer-login';

export class MpGateway {
  constructor(
    private readonly services: Services,
    private readonly selfClients: SelfClients,
    private readonly login: PayerLogin,
  ) {}

  /**
   * 4.2 for the page, with the order number and what `extraInfo` says was bought (a direct read:
   * 4.2 does not carry `extraInfo`); `not_found` (404) when there is no such order.
   */
  async detail(prepayId: string, opts: { wait?: boolean; signal?: AbortSignal } = {}): Promise<MpOrder> {
    const client = await this.clientFor(prepayId);
    let detail: PrepayDetail;
    try {
      detail = await client.prepayDetail(prepayId, opts);
    } catch (e) {
      throw upstream(e, prepayId);
    }
    const order: MpOrder = { ...detail, prepayId };
    const bought = readOrderItems(parseStored((await this.services.prepay.find(prepayId))?.extra_info));
    if (bought) {
      if (bought.items.length) order.items = bought.items;
      if (bought.more) order.itemsMore = bought.more;
      if (bought.note) order.note = bought.note;
    }
    return order;
  }

  /** Code → open id → 4.4. A refusal by 4.4 is an answer (the page asks to scan again), not an error. */
  async pay(prepayId: string, code: string, payer: { address?: string }): Promise<MpPayResponse> {
    const client = await this.clientFor(prepayId);
    // A login code has no account: refused codes count against the payer's address.
    const openId = await this.services.logins.guard({ address: payer.address }, () => this.login.openIdFor(code));
    let answer: { httpStatus: number; body: Record<string, unknown> };
    try {
      answer = await client.call('POST', '/submerchant-pay/socialPay', { body: { prepayId, openId } });
    } catch (e) {
      throw upstream(e, prepayId);
    }
    const { body } = answer;
    if (answer.httpStatus === 200 && body.status === 'success' && body.args && typeof body.args === 'object') {
      return { version: PAY_VERSION, status: 'success', args: body.args as Extract<MpPayResponse, { args: unknown }>['args'] };
    }
    return {
      version: PAY_VERSION,
      status: typeof body.status === 'string' && body.status !== 'success' ? body.status : 'fail',
      error: typeof body.error === 'string' ? body.error : undefined,
      msg: typeof body.msg === 'string' ? body.msg : `payment arguments refused (HTTP ${answer.httpStatus})`,
    };
  }

  private async clientFor(prepayId: string): Promise<KitClient> {
    const appId = await this.services.prepay.subMerchantAppOf(prepayId);
    if (!appId) throw new KitError('not_found', `prepay order "${prepayId}" does not exist`);
    try {
      return await this.selfClients.forApp(appId);
    } catch {
      // The owning app was disabled or removed: the order cannot be served.
      throw new KitError('not_found', `prepay order "${prepayId}" does not exist`);
    }
  }
}

function upstream(e: unknown, prepayId: string): Error {
  if (e instanceof KitApiError) {
    if (e.isNotFound) return new KitError('not_found', `prepay order "${prepayId}" does not exist`);
    if (e.error === 'unavailable') return new KitError('unavailable');
    return new KitError('mp_upstream_failed', `the service answered ${e.httpStatus} ${e.error ?? ''}`.trim());
  }
  if (e instanceof KitNetworkError) return new KitError('mp_upstream_unreachable');
  return e instanceof Error ? e : new Error(String(e));
}

/** `extra_info` is stored as the JSON text of what the merchant sent. */
function parseStored(text: string | null | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
