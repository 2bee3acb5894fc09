/**
 * The order calls of protocol v2 (2.4), the same for both channels: each built from what the service
 * stored when the channel order or refund was created, signed with the sign type that order was
 * placed with, naming the merchant the way the channel wants.
 */
import type { PayChannelOrdersTable, PayRefundsTable } from '../../../db/schema';
import { callProtocol, type ProtocolAnswer, type ProtocolOp } from './client';
import { isSignType } from './sign';
import { formatChinaTime } from '../china-time';
import type { Fields } from './xml';
import { definedOnly, merchantOf } from './merchant';
import type { ChannelAdapter, OrderCalls } from './types';

export function v2OrderCalls(adapter: ChannelAdapter, notifyUrl: (kind: 'pay' | 'refund') => string): OrderCalls {
  const ids = (co: PayChannelOrdersTable): Record<string, string> => adapter.requestIds(merchantOf(co));
  const call = (op: ProtocolOp, request: Fields, co: PayChannelOrdersTable): Promise<ProtocolAnswer> =>
    // An order placed over API v3 (sign type RSA) and followed after a switch back to v2 is signed as new ones are.
    callProtocol(adapter.endpoint(), op, request, isSignType(co.sign_type) ? co.sign_type : 'HMAC-SHA256');
  return {
    unifiedOrder(co, order) {
      const request: Fields = {
        ...definedOnly(merchantOf(co)),
        body: truncateBytes(order.display_name, 120),
        attach: order.prepay_id,
        out_trade_no: co.out_trade_no,
        total_fee: String(co.total_cents),
        fee_type: 'CNY',
        spbill_create_ip: '127.0.0.1',
        time_start: formatChinaTime(co.created_at),
        // The channel refuses late payments by itself.
        time_expire: formatChinaTime(order.expire_at),
        notify_url: notifyUrl('pay'),
        trade_type: co.trade_type,
      };
      if (co.trade_type === 'NATIVE') request.product_id = order.prepay_id;
      if (co.profit_sharing) request.profit_sharing = 'Y';
      return call('unifiedOrder', request, co);
    },
    orderQuery: (co) => call('orderQuery', { ...ids(co), out_trade_no: co.out_trade_no }, co),
    closeOrder: (co) => call('closeOrder', { ...ids(co), out_trade_no: co.out_trade_no }, co),
    refund: (r: PayRefundsTable, co) =>
      call(
        'refund',
        {
          ...ids(co),
          ...(co.transaction_id ? { transaction_id: co.transaction_id } : {}),
          out_trade_no: co.out_trade_no,
          out_refund_no: r.out_refund_no,
          total_fee: String(co.total_cents),
          refund_fee: String(r.refund_cents),
          refund_fee_type: 'CNY',
          notify_url: notifyUrl('refund'),
        },
        co,
      ),
    refundQuery: (r, co) => call('refundQuery', { ...ids(co), out_refund_no: r.out_refund_no }, co),
  };
}

/** The protocol's `body` field is limited in bytes; cut on a character boundary. */
export function truncateBytes(text: string, max: number): string {
  let out = '';
  for (const ch of text) {
    if (Buffer.byteLength(out + ch) > max) break;
    out += ch;
  }
  return out || '-';
}
