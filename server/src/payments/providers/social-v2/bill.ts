/**
 * The trade bill over protocol v2 (`/pay/downloadbill`): a signed request for the service
 * provider's whole account (no `sub_mch_id`: one bill for every sub-merchant), answered with the
 * bill itself (GZIP when asked) or, when there is none, protocol XML saying why.
 */
import { gunzipSync } from 'node:zlib';
import { KitError } from '@kit/shared';
import { DOWNLOAD_BILL_PATH, nonce } from '../protocol-v2/client';
import { signFields, type SignType } from '../protocol-v2/sign';
import { parseXml, toXml, type Fields } from '../protocol-v2/xml';
import type { BillText, ChannelAdapter } from '../protocol-v2/types';
import type { SocialSettings } from '../social-v3/settings';
import type { SocialV2Settings } from './settings';

/** The platform's v2 answers for a day without a bill, and for one still being made. */
export const NO_BILL_MESSAGES = ['No Bill Exist', 'NO_STATEMENT_EXIST'];
export const BILL_CREATING_MESSAGES = ['Bill Creating'];

export function billsV2(adapter: ChannelAdapter, config: SocialSettings & SocialV2Settings): { download(date: string): Promise<BillText> } {
  return {
    async download(date: string): Promise<BillText> {
      const ep = adapter.endpoint();
      if (!config.PAY_SP_APPID || !config.PAY_SP_MCH_ID) throw new KitError('channel_unavailable', 'PAY_SP_APPID and PAY_SP_MCH_ID are not configured');
      const signType: SignType = config.PAY_SIGN_TYPE;
      const fields: Fields = {
        appid: config.PAY_SP_APPID,
        mch_id: config.PAY_SP_MCH_ID,
        nonce_str: nonce(),
        sign_type: signType,
        bill_date: date.replaceAll('-', ''),
        bill_type: 'ALL',
        tar_type: 'GZIP',
      };
      fields.sign = signFields(fields, ep.key, signType);
      let body: Buffer;
      try {
        const res = await fetch(`${ep.baseUrl.replace(/\/+$/, '')}${DOWNLOAD_BILL_PATH}`, {
          method: 'POST',
          headers: { 'content-type': 'text/xml; charset=utf-8' },
          body: toXml(fields),
          signal: ep.clock.timeout(Math.max(ep.timeoutMs, 30_000)),
        });
        body = Buffer.from(await res.arrayBuffer());
      } catch (e) {
        throw new KitError('channel_unavailable', `payment channel downloadbill failed: ${(e as Error).message}`);
      }
      return readAnswer(body);
    },
  };
}

function readAnswer(body: Buffer): BillText {
  if (body[0] === 0x1f && body[1] === 0x8b) {
    try {
      return { kind: 'bill', text: gunzipSync(body).toString('utf8') };
    } catch (e) {
      throw new KitError('channel_error', `the bill does not decompress: ${(e as Error).message}`);
    }
  }
  const text = body.toString('utf8');
  if (!text.trimStart().startsWith('<xml')) return { kind: 'bill', text };
  let answer: Fields;
  try {
    answer = parseXml(text);
  } catch {
    throw new KitError('channel_error', 'payment channel downloadbill answered unreadable XML');
  }
  const msg = answer.return_msg ?? answer.err_code ?? '';
  if (NO_BILL_MESSAGES.includes(msg) || NO_BILL_MESSAGES.includes(answer.error_code ?? '')) return { kind: 'none' };
  if (BILL_CREATING_MESSAGES.includes(msg)) return { kind: 'not_ready', why: msg };
  throw new KitError('channel_error', `payment channel refused downloadbill: ${msg || 'no message'}`);
}
