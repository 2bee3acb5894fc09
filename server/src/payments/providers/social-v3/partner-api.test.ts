/** Partner endpoints: requests as the v3 documentation lays them out, answers read into the services' vocabulary. */
import { paidFieldsProblem, refundNotificationProblem } from '../protocol-v2/checks';
import type { V3Answer } from './client';
import {
  closeRequest,
  placeRequest,
  queryRequest,
  readClosed,
  readCodePaid,
  readPlaced,
  readQueried,
  readRefund,
  readRefundQuery,
  refundFields,
  refundRequest,
  rfc3339Cst,
  transactionFields,
  V3AnswerError,
} from './partner-api';

const merchant = { appid: 'wx8888888888888888', mch_id: '1900000001', sub_mch_id: '1900000109' };
const answer = (status: number, body: object | null, requestId = 'RID-1'): V3Answer => ({
  status,
  body: body as Record<string, unknown> | null,
  text: body ? JSON.stringify(body) : '',
  headers: {},
  requestId,
});
const order = {
  out_trade_no: 'T20250101A',
  description: 'Image形象店-深圳腾大-QQ公仔',
  attach: 'P1',
  total_cents: 1234,
  expire_at: Date.UTC(2025, 0, 1, 2, 30),
  notify_url: 'https://kit.example/pay-notify/social/pay',
  profit_sharing: false,
};

describe('API v3 partner requests', () => {
  test('native, jsapi (for the mini-program payer) and app orders; profit sharing asked in settle_info', () => {
    expect(placeRequest('NATIVE', merchant, order)).toEqual({
      method: 'POST',
      path: '/v3/pay/partner/transactions/native',
      repeatable: true,
      body: {
        sp_appid: 'wx8888888888888888',
        sp_mchid: '1900000001',
        sub_mchid: '1900000109',
        description: order.description,
        out_trade_no: 'T20250101A',
        time_expire: '2025-01-01T10:30:00+08:00',
        attach: 'P1',
        notify_url: order.notify_url,
        amount: { total: 1234, currency: 'CNY' },
      },
    });
    const jsapi = placeRequest('JSAPI', { ...merchant, sub_appid: 'wxmp', sub_openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' }, { ...order, profit_sharing: true });
    expect(jsapi.path).toBe('/v3/pay/partner/transactions/jsapi');
    expect(jsapi.body).toMatchObject({ sub_appid: 'wxmp', payer: { sub_openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' }, settle_info: { profit_sharing: true } });
    expect(placeRequest('APP', merchant, order).path).toBe('/v3/pay/partner/transactions/app');
  });

  test('query, close, refund and refund query', () => {
    expect(queryRequest(merchant, 'T 1/2').path).toBe('/v3/pay/partner/transactions/out-trade-no/T%201%2F2?sp_mchid=1900000001&sub_mchid=1900000109');
    expect(closeRequest(merchant, 'T1')).toEqual({
      method: 'POST',
      path: '/v3/pay/partner/transactions/out-trade-no/T1/close',
      body: { sp_mchid: '1900000001', sub_mchid: '1900000109' },
      repeatable: true,
    });
    const r = {
      out_trade_no: 'T1',
      transaction_id: '4200000001',
      out_refund_no: 'R1',
      refund_cents: 1234,
      total_cents: 1234,
      notify_url: 'https://kit.example/pay-notify/social/refund',
    };
    expect(refundRequest(merchant, r).body).toEqual({
      sub_mchid: '1900000109',
      transaction_id: '4200000001',
      out_refund_no: 'R1',
      notify_url: r.notify_url,
      amount: { refund: 1234, total: 1234, currency: 'CNY' },
    });
    expect(refundRequest(merchant, { ...r, transaction_id: null }).body).toMatchObject({ out_trade_no: 'T1' });
    expect(rfc3339Cst(Date.UTC(2024, 11, 31, 16, 0, 0, 999))).toBe('2025-01-01T00:00:00+08:00');
  });
});

describe('API v3 partner answers', () => {
  const paid = {
    sp_appid: 'wx8888888888888888',
    sp_mchid: '1900000001',
    sub_appid: 'wxmp',
    sub_mchid: '1900000109',
    out_trade_no: 'T20250101A',
    transaction_id: '4200000985202501011234567890',
    trade_type: 'JSAPI',
    trade_state: 'SUCCESS',
    trade_state_desc: '支付成功',
    bank_type: 'CMC',
    attach: 'P1',
    success_time: '2025-01-01T10:05:06+08:00',
    payer: { sub_openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' },
    amount: { total: 1234, payer_total: 1234, currency: 'CNY', payer_currency: 'CNY' },
  };

  test('a placed order: code_url for native, prepay_id otherwise; a failure keeps its code and Request-ID', () => {
    expect(readPlaced('NATIVE', answer(200, { code_url: 'weixin://wxpay/bizpayurl?pr=p4lpSuKzz' }))).toMatchObject({
      ok: true,
      fields: { code_url: 'weixin://wxpay/bizpayurl?pr=p4lpSuKzz' },
    });
    expect(readPlaced('JSAPI', answer(200, { prepay_id: 'wx26112221580621e9b071c00d9e093b0000' })).fields.prepay_id).toBe(
      'wx26112221580621e9b071c00d9e093b0000',
    );
    expect(() => readPlaced('NATIVE', answer(200, { prepay_id: 'x' }))).toThrow(V3AnswerError);
    expect(readPlaced('NATIVE', answer(400, { code: 'ORDER_CLOSED', message: '订单已关闭' }))).toEqual({
      fields: {},
      ok: false,
      errCode: 'ORDERCLOSED',
      errMsg: '订单已关闭 (Request-ID RID-1)',
    });
    expect(readPlaced('NATIVE', answer(400, { code: 'PARAM_ERROR', message: 'x' })).errCode).toBe('PARAM_ERROR');
  });

  test('a paid order reads as the services check it (merchant, amount, time_end in CST)', () => {
    const q = readQueried(answer(200, paid));
    expect(q).toMatchObject({
      ok: true,
      fields: {
        trade_state: 'SUCCESS',
        total_fee: '1234',
        time_end: '20250101100506',
        transaction_id: '4200000985202501011234567890',
        appid: 'wx8888888888888888',
        mch_id: '1900000001',
        sub_mch_id: '1900000109',
      },
    });
    const facts = { sign_type: 'RSA', total_cents: 1234, merchant };
    expect(paidFieldsProblem(q.fields, facts)).toBeNull();
    expect(paidFieldsProblem(transactionFields({ ...paid, amount: { total: 1234, currency: 'USD' } }), facts)).toMatch(/total_fee/);
    expect(paidFieldsProblem(transactionFields({ ...paid, sub_mchid: '1900000110' }), facts)).toMatch(/sub_mch_id/);
    expect(readQueried(answer(404, { code: 'ORDER_NOT_EXIST', message: '订单不存在' })).errCode).toBe('ORDERNOTEXIST');
    expect(() => readQueried(answer(200, { trade_state: 'SUCCESS' }))).toThrow(V3AnswerError);
  });

  test('a payment code: paid (200 with the trade), the payer confirming (202, a 200 saying USERPAYING, or that code), refused', () => {
    expect(readCodePaid(answer(200, paid))).toMatchObject({ ok: true, fields: { trade_state: 'SUCCESS', transaction_id: paid.transaction_id } });
    const confirming = { ok: true, fields: { return_code: 'SUCCESS', trade_state: 'USERPAYING' } };
    expect(readCodePaid(answer(202, { code: 'USERPAYING', message: '需要用户输入支付密码' }))).toEqual(confirming);
    expect(readCodePaid(answer(200, { trade_state: 'USERPAYING' }))).toEqual(confirming);
    expect(readCodePaid(answer(403, { code: 'USERPAYING', message: '需要用户输入支付密码' }))).toEqual(confirming);
    expect(readCodePaid(answer(400, { code: 'AUTH_CODE_INVALID', message: '付款码无效' }))).toMatchObject({ ok: false, errCode: 'AUTH_CODE_INVALID' });
  });

  test('close: 204 is done; paid is ORDERPAID', () => {
    expect(readClosed(answer(204, null)).ok).toBe(true);
    expect(readClosed(answer(400, { code: 'ORDERPAID', message: '订单已支付' })).errCode).toBe('ORDERPAID');
  });

  test('refunds, refund queries and refund notifications', () => {
    const accepted = {
      refund_id: '50000000382019052709732678859',
      out_refund_no: 'R1',
      transaction_id: '4200000985202501011234567890',
      out_trade_no: 'T20250101A',
      channel: 'ORIGINAL',
      status: 'PROCESSING',
      create_time: '2025-01-01T10:10:00+08:00',
      amount: { refund: 1234, total: 1234, payer_total: 1234, payer_refund: 1234, currency: 'CNY' },
    };
    expect(readRefund(answer(200, accepted))).toMatchObject({
      ok: true,
      fields: { refund_id: '50000000382019052709732678859', refund_status: 'PROCESSING', refund_fee: '1234' },
    });
    expect(readRefundQuery(answer(200, { ...accepted, status: 'SUCCESS' })).fields).toMatchObject({
      out_refund_no_0: 'R1',
      refund_status_0: 'SUCCESS',
      refund_fee_0: '1234',
      refund_id_0: '50000000382019052709732678859',
    });
    expect(readRefundQuery(answer(200, { ...accepted, status: 'ABNORMAL' })).fields.refund_status_0).toBe('CHANGE');
    expect(readRefundQuery(answer(404, { code: 'RESOURCE_NOT_EXISTS', message: '退款单不存在' })).errCode).toBe('REFUNDNOTEXIST');
    // The notification's resource has refund_status and no currency.
    const notified = refundFields({
      sp_mchid: '1900000001',
      sub_mchid: '1900000109',
      out_trade_no: 'T20250101A',
      out_refund_no: 'R1',
      refund_id: '5000',
      refund_status: 'CLOSED',
      amount: { total: 1234, refund: 1234, payer_total: 1234, payer_refund: 1234 },
    });
    expect(notified.refund_status).toBe('REFUNDCLOSE');
    expect(refundNotificationProblem(notified, { out_trade_no: 'T20250101A', refund_cents: 1234 }, 1234)).toBeNull();
    expect(refundNotificationProblem(notified, { out_trade_no: 'T20250101A', refund_cents: 1000 }, 1234)).toMatch(/refund_fee/);
  });
});
