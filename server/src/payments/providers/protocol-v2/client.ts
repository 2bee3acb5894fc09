/**
 * Client of the social payment protocol version 2 (and of the card acquirer, which speaks the same
 * protocol): signs each request, posts XML, parses the answer and checks its signature. The calls
 * under `/secapi/` (refunds, profit-sharing splits, reversing a payment code) present the merchant's
 * API client certificate (mutual TLS) when the endpoint has one: the platform refuses them otherwise.
 */
import type { Clock } from '@kit/shared/clock';
import { randomBytes } from 'node:crypto';
import type https from 'node:https';
import { KitError } from '@kit/shared';
import { post } from '../../../http/post-client';
import { signFields, verifyFields, type SignType } from './sign';
import { parseXml, toXml, XmlError, type Fields } from './xml';

export const PROTOCOL_PATHS = {
  unifiedOrder: '/pay/unifiedorder',
  orderQuery: '/pay/orderquery',
  closeOrder: '/pay/closeorder',
  refund: '/secapi/pay/refund',
  refundQuery: '/pay/refundquery',
  // The payer's payment code (7.4): charging it, and undoing it whatever its state.
  microPay: '/pay/micropay',
  reverse: '/secapi/pay/reverse',
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

/** Whether a call needs the merchant's API client certificate (the platform's `/secapi/` paths). */
export const needsClientCertificate = (op: ProtocolOp): boolean => PROTOCOL_PATHS[op].startsWith('/secapi/');

/** The most of an answer read: protocol answers are a few hundred bytes of XML. */
const MAX_ANSWER_BYTES = 1 << 20;

export interface ProtocolEndpoint {
  /** Gateway base URL, e.g. `https://api.example.com` or the sandbox's `…/sandbox`. */
  baseUrl: string;
  key: string;
  timeoutMs: number;
  /** The service's clock, which the call's time limit runs on. */
  clock: Clock;
  /**
   * The agent holding the merchant's API client certificate, for the `/secapi/` calls over HTTPS;
   * throws `channel_unavailable` naming the settings when none is configured. Absent: those calls go
   * without one (the card acquirer's).
   */
  secapiAgent?: () => https.Agent;
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
  const url = `${ep.baseUrl.replace(/\/+$/, '')}${PROTOCOL_PATHS[op]}`;
  const headers = { 'content-type': 'text/xml; charset=utf-8' };
  // Over plain HTTP (the sandbox in development) there is no TLS to present a certificate in.
  const agent = ep.secapiAgent && needsClientCertificate(op) && url.startsWith('https:') ? ep.secapiAgent() : undefined;
  let text: string;
  let status: number;
  try {
    if (agent) {
      const res = await post(url, toXml(fields), { headers, timeoutMs: ep.timeoutMs, clock: ep.clock, maxBytes: MAX_ANSWER_BYTES, agent });
      status = res.status;
      text = res.head;
    } else {
      const res = await fetch(url, { method: 'POST', headers, body: toXml(fields), signal: ep.clock.timeout(ep.timeoutMs) });
      status = res.status;
      text = await res.text();
    }
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
