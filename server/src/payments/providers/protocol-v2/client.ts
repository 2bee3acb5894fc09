/**
 * Client of the social payment protocol version 2 (and of the card acquirer, which speaks the same
 * protocol): signs each request, posts XML, parses the answer and checks its signature.
 */
import type { Clock } from '@kit/shared/clock';
import { randomBytes } from 'node:crypto';
import { KitError } from '@kit/shared';
import { signFields, verifyFields, type SignType } from './sign';
import { parseXml, toXml, XmlError, type Fields } from './xml';

export const PROTOCOL_PATHS = {
  unifiedOrder: '/pay/unifiedorder',
  orderQuery: '/pay/orderquery',
  closeOrder: '/pay/closeorder',
  refund: '/secapi/pay/refund',
  refundQuery: '/pay/refundquery',
  // Profit sharing (4.8): receivers, a split that leaves the order open or finishes it, its query,
  // finishing an order's sharing, and the amount still frozen for sharing.
  psAddReceiver: '/pay/profitsharingaddreceiver',
  psRemoveReceiver: '/pay/profitsharingremovereceiver',
  psSplit: '/secapi/pay/multiprofitsharing',
  psSplitAndFinish: '/secapi/pay/profitsharing',
  psQuery: '/pay/profitsharingquery',
  psFinish: '/secapi/pay/profitsharingfinish',
  psAmount: '/pay/profitsharingorderamountquery',
} as const;
export type ProtocolOp = keyof typeof PROTOCOL_PATHS;

/** The trade bill (5.2), answered with the file itself rather than protocol XML. */
export const DOWNLOAD_BILL_PATH = '/pay/downloadbill';

export const nonce = (): string => randomBytes(16).toString('hex');

export interface ProtocolEndpoint {
  /** Gateway base URL, e.g. `https://api.example.com` or the sandbox's `…/sandbox`. */
  baseUrl: string;
  key: string;
  timeoutMs: number;
  /** The service's clock, which the call's time limit runs on. */
  clock: Clock;
}

/** A successful exchange: `return_code` SUCCESS and a valid signature; `result_code` is left to the caller. */
export interface ProtocolAnswer {
  fields: Fields;
  ok: boolean;
  errCode?: string;
  errMsg?: string;
}

export async function callProtocol(ep: ProtocolEndpoint, op: ProtocolOp, request: Fields, signType: SignType): Promise<ProtocolAnswer> {
  const fields: Fields = { ...request, nonce_str: nonce(), sign_type: signType };
  fields.sign = signFields(fields, ep.key, signType);
  let text: string;
  let status: number;
  try {
    const res = await fetch(`${ep.baseUrl.replace(/\/+$/, '')}${PROTOCOL_PATHS[op]}`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8' },
      body: toXml(fields),
      signal: ep.clock.timeout(ep.timeoutMs),
    });
    status = res.status;
    text = await res.text();
  } catch (e) {
    throw new KitError('channel_unavailable', `payment channel ${op} failed: ${(e as Error).message}`);
  }
  let answer: Fields;
  try {
    answer = parseXml(text);
  } catch (e) {
    throw new KitError(
      'channel_error',
      `payment channel ${op} answered HTTP ${status} without protocol XML: ${e instanceof XmlError ? e.message : 'unreadable'}`,
    );
  }
  if (answer.return_code !== 'SUCCESS') {
    throw new KitError('channel_error', `payment channel refused ${op}: ${answer.return_msg || 'no message'}`);
  }
  if (!verifyFields(answer, ep.key, signType)) {
    throw new KitError('channel_error', `payment channel ${op} answer has a bad signature`);
  }
  const ok = answer.result_code === 'SUCCESS';
  return { fields: answer, ok, errCode: ok ? undefined : answer.err_code, errMsg: ok ? undefined : answer.err_code_des };
}
