/**
 * The payer's payment code over protocol v2 (付款码支付, 7.4): `pay/micropay` charges it, and
 * `secapi/pay/reverse` undoes it whatever its state (the latter presents the merchant's API client
 * certificate: `client.ts`). Fields as the service provider's micropay and reverse take them.
 */
import type { PayChannelOrdersTable } from '../../../db/schema';
import { callProtocol, type ProtocolAnswer, type ProtocolOp } from './client';
import { definedOnly, merchantOf } from './merchant';
import { truncateBytes } from './order-calls';
import { isSignType } from './sign';
import type { ChannelAdapter, CodeCalls } from './types';
import type { Fields } from './xml';

export function v2CodeCalls(adapter: ChannelAdapter): CodeCalls {
  const call = (op: ProtocolOp, request: Fields, co: PayChannelOrdersTable): Promise<ProtocolAnswer> =>
    callProtocol(adapter.endpoint(), op, request, isSignType(co.sign_type) ? co.sign_type : 'HMAC-SHA256');
  return {
    codePay(co, order, code) {
      const request: Fields = {
        ...adapter.requestIds(merchantOf(co)),
        body: truncateBytes(order.display_name, 120),
        attach: order.prepay_id,
        out_trade_no: co.out_trade_no,
        total_fee: String(co.total_cents),
        fee_type: 'CNY',
        spbill_create_ip: '127.0.0.1',
        auth_code: code.authCode,
        // The counter's device, for the platform's records.
        ...definedOnly({ device_info: code.deviceId }),
      };
      return call('microPay', request, co);
    },
    // The same out_trade_no reversed again is answered as done: the call is safe to repeat.
    reverse: (co) => call('reverse', { ...adapter.requestIds(merchantOf(co)), out_trade_no: co.out_trade_no }, co),
  };
}
