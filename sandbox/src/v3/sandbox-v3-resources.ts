/**
 * What the sandbox's API v3 platform says about its orders and refunds, in the documented JSON:
 * the transaction of a query answer and of a payment notification's resource, and the refund of the
 * refund answers and of a refund notification's resource. Amounts are integers of cents, as on the
 * wire; times RFC 3339 in China Standard Time.
 */
import { rfc3339China } from '../protocol/china-time';
import { sandboxOpenId } from '../sandbox-platform';
import type { SandboxOrder, SandboxRefund } from '../sandbox-store';

const TRADE_STATE_DESC: Record<string, string> = {
  NOTPAY: '未支付',
  SUCCESS: '支付成功',
  REFUND: '转入退款',
  CLOSED: '已关闭',
  USERPAYING: '用户支付中（输入密码）',
  REVOKED: '已撤销（付款码支付）',
  PAYERROR: '支付失败',
};

/** The partner transaction (`/v3/pay/partner/transactions/out-trade-no/{no}`); `state` as the query sees it. */
export function transactionOf(o: SandboxOrder, state: string = o.state): Record<string, unknown> {
  const t: Record<string, unknown> = {
    sp_appid: o.appid,
    sp_mchid: o.mch_id,
    ...(o.sub_appid ? { sub_appid: o.sub_appid } : {}),
    sub_mchid: o.sub_mch_id ?? '',
    out_trade_no: o.out_trade_no,
    trade_type: o.trade_type,
    trade_state: state,
    trade_state_desc: TRADE_STATE_DESC[state] ?? state,
    amount: { total: o.total_fee, currency: 'CNY' },
  };
  if (o.transaction_id && o.paid_at !== null) {
    t.transaction_id = o.transaction_id;
    t.bank_type = 'OTHERS';
    t.success_time = rfc3339China(o.paid_at);
    t.payer = {
      sp_openid: o.openid ?? sandboxOpenId(o.appid, 'sandbox-payer'),
      ...(o.sub_openid ? { sub_openid: o.sub_openid } : {}),
    };
    t.amount = { total: o.total_fee, payer_total: o.total_fee, currency: 'CNY', payer_currency: 'CNY' };
  }
  return t;
}

/** A refund as the refund and refund-query answers tell it (`status`): PROCESSING until its completion time. */
export function refundOf(
  o: SandboxOrder,
  r: Pick<SandboxRefund, 'refund_id' | 'out_refund_no' | 'refund_fee' | 'state' | 'created_at' | 'success_at'>,
  now: number,
) {
  const done = r.success_at === null || r.success_at <= now;
  return {
    refund_id: r.refund_id,
    out_refund_no: r.out_refund_no,
    transaction_id: o.transaction_id ?? '',
    out_trade_no: o.out_trade_no,
    channel: 'ORIGINAL',
    user_received_account: 'sandbox payer balance',
    ...(done && r.state === 'SUCCESS' ? { success_time: rfc3339China(r.success_at ?? r.created_at) } : {}),
    create_time: rfc3339China(r.created_at),
    status: done ? r.state : 'PROCESSING',
    funds_account: 'UNSETTLED',
    amount: {
      total: o.total_fee,
      refund: r.refund_fee,
      payer_total: o.total_fee,
      payer_refund: r.refund_fee,
      settlement_refund: r.refund_fee,
      settlement_total: o.total_fee,
      discount_refund: 0,
      currency: 'CNY',
    },
  };
}

/** The resource of a refund notification (`refund_status`, no `status`). */
export function refundResourceOf(o: SandboxOrder, r: SandboxRefund): Record<string, unknown> {
  return {
    sp_mchid: o.mch_id,
    sub_mchid: o.sub_mch_id ?? '',
    transaction_id: o.transaction_id ?? '',
    out_trade_no: o.out_trade_no,
    refund_id: r.refund_id,
    out_refund_no: r.out_refund_no,
    refund_status: 'SUCCESS',
    success_time: rfc3339China(r.success_at ?? r.created_at),
    user_received_account: 'sandbox payer balance',
    amount: { total: o.total_fee, refund: r.refund_fee, payer_total: o.total_fee, payer_refund: r.refund_fee },
  };
}
