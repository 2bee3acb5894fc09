/**
 * A payment code's answers (7.4) read into the kit's facts, as protocol v2's `micropay` and `reverse`
 * answer (and v3's `codepay` and `reverse` are read into the same fields): paid, the payer confirming,
 * no outcome (a system or bank error: the kit reverses), the refusals with their meanings, and a
 * reverse the platform asks for again.
 */
import { isKitError } from '@kit/shared';
import type { PayChannelOrdersTable } from '../../../db/schema';
import type { ProtocolAnswer } from './client';
import { codePaymentOf } from './code-payment';
import type { CodeCalls } from './types';

const merchant = { appid: 'wx5andb0xsp000001', mch_id: '1900000109', sub_appid: 'wxmerchantapp0001', sub_mch_id: '1230000109' };
const co: PayChannelOrdersTable = {
  out_trade_no: 'C20250101A',
  prepay_id: 'P1',
  channel: 'SocialNative',
  trade_type: 'MICROPAY',
  sign_type: 'HMAC-SHA256',
  open_id: null,
  profit_sharing: 0,
  state: 'creating',
  total_cents: 880,
  merchant_json: JSON.stringify(merchant),
  channel_prepay_id: null,
  code_url: null,
  answer_json: null,
  transaction_id: null,
  paid_at: null,
  paid_via: null,
  created_at: 0,
  updated_at: 0,
};
const order = { prepay_id: 'P1', display_name: 'Corner Shop', total_cents: 880, expire_at: 0 };
const NOW = Date.UTC(2025, 0, 1, 2, 5, 30);

/** v2's answers: `return_code` SUCCESS (the client checked it and the signature), then the result. */
const success = (fields: Record<string, string>): ProtocolAnswer => ({
  fields: { return_code: 'SUCCESS', result_code: 'SUCCESS', ...merchant, ...fields },
  ok: true,
});
const fail = (errCode: string, extra: Record<string, string> = {}): ProtocolAnswer => ({
  fields: { return_code: 'SUCCESS', result_code: 'FAIL', err_code: errCode, err_code_des: '说明', ...merchant, ...extra },
  ok: false,
  errCode,
  errMsg: '说明',
});
const paidFields = { trade_type: 'MICROPAY', total_fee: '880', transaction_id: '4200000001202501010000000001', time_end: '20250101100530' };

function payingWith(pay: ProtocolAnswer, reverse: ProtocolAnswer = success({ recall: 'N' })) {
  const calls: CodeCalls = { codePay: async () => pay, reverse: async () => reverse };
  return codePaymentOf(
    () => calls,
    () => NOW,
  );
}
const code = { authCode: '130061098828009406' };

describe('a payment code answered in protocol v2 fields', () => {
  test('result_code SUCCESS (no trade_state) is paid, with the transaction and its second', async () => {
    expect(await payingWith(success(paidFields)).pay(co, order, code)).toEqual({
      ok: true,
      paid: { transactionId: paidFields.transaction_id, paidAt: Date.UTC(2025, 0, 1, 2, 5, 30) },
    });
  });

  test('a paid answer for another merchant or amount, or without a transaction, is no outcome (the kit reverses)', async () => {
    for (const wrong of [{ total_fee: '881' }, { sub_mch_id: '1230000999' }, { transaction_id: '' }] as Array<Record<string, string>>) {
      const err = await payingWith(success({ ...paidFields, ...wrong }))
        .pay(co, order, code)
        .catch((e: unknown) => e);
      expect(isKitError(err) && err.error).toBe('channel_unavailable');
    }
  });

  test('USERPAYING, as v2 says it (err_code) and as v3 is read (trade_state), is the payer confirming', async () => {
    expect(await payingWith(fail('USERPAYING')).pay(co, order, code)).toEqual({ ok: true, paid: null });
    expect(await payingWith({ fields: { return_code: 'SUCCESS', trade_state: 'USERPAYING' }, ok: true }).pay(co, order, code)).toEqual({
      ok: true,
      paid: null,
    });
  });

  test.each(['SYSTEMERROR', 'BANKERROR', 'SYSTEM_ERROR', 'BANK_ERROR'])('%s says nothing of the money: channel_unavailable', async (errCode) => {
    await expect(payingWith(fail(errCode)).pay(co, order, code)).rejects.toMatchObject({ error: 'channel_unavailable' });
  });

  test.each([
    ['AUTHCODEEXPIRE', 'code_unusable'],
    ['AUTH_CODE_INVALID', 'code_unusable'],
    ['AUTH_CODE_ERROR', 'code_unusable'],
    ['NOTENOUGH', 'payer_cannot_pay'],
    ['NOTSUPORTCARD', 'payer_cannot_pay'],
    ['BUYER_MISMATCH', 'payer_cannot_pay'],
    ['ORDERPAID', 'paid'],
    ['ORDERREVERSED', 'closed'],
    ['ORDERCLOSED', 'closed'],
    ['TRADE_ERROR', 'other'],
    ['PARAM_ERROR', 'request_refused'],
    ['SIGN_ERROR', 'request_refused'],
    ['NOAUTH', 'request_refused'],
    ['APPID_MCHID_NOT_MATCH', 'request_refused'],
  ])('%s is refused, meaning %s', async (errCode, meaning) => {
    expect(await payingWith(fail(errCode)).pay(co, order, code)).toEqual({ ok: false, refusal: { call: 'order', meaning, code: errCode, message: '说明' } });
  });

  test('reverse: done with recall N; asked again with recall Y, after a success or with a SYSTEMERROR; a refusal otherwise', async () => {
    expect(await payingWith(fail('NOTENOUGH'), success({ recall: 'N' })).cancel(co)).toEqual({ ok: true, again: false });
    expect(await payingWith(fail('NOTENOUGH'), success({ recall: 'Y' })).cancel(co)).toEqual({ ok: true, again: true });
    expect(await payingWith(fail('NOTENOUGH'), fail('SYSTEMERROR', { recall: 'Y' })).cancel(co)).toEqual({ ok: true, again: true });
    expect(await payingWith(fail('NOTENOUGH'), fail('ORDERNOTEXIST')).cancel(co)).toMatchObject({ ok: false, refusal: { meaning: 'not_found' } });
    expect(await payingWith(fail('NOTENOUGH'), fail('REVERSE_EXPIRE')).cancel(co)).toMatchObject({
      ok: false,
      refusal: { meaning: 'other', code: 'REVERSE_EXPIRE' },
    });
  });
});
