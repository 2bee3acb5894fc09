/**
 * Payment notifications as the social payment platform sends them (protocol v2 XML, signed with
 * the platform key and the sign type the order was placed with), built from the channel order the
 * service created (`pay_channel_orders`, read with SQL).
 */
import { signFields, type SignType } from '../../../server/src/payments/protocol/sign';
import { toXml } from '../../../server/src/payments/protocol/xml';
import { formatChinaTime } from '../../../server/src/payments/protocol/time';

/** What a notification needs to know about one channel order. */
export interface ChannelOrder {
  prepayId: string;
  outTradeNo: string;
  totalCents: number;
  signType: string;
  /** The unified order's merchant fields (`appid`, `mch_id`, `sub_mch_id`…). */
  merchant: Record<string, string>;
}

export function payNotificationXml(o: ChannelOrder, key: string, serial: string, paidAt = Date.now()): string {
  const f: Record<string, string> = {
    return_code: 'SUCCESS',
    appid: o.merchant.appid,
    mch_id: o.merchant.mch_id,
    nonce_str: `n${serial}`,
    result_code: 'SUCCESS',
    openid: 'obenchpayer',
    trade_type: 'NATIVE',
    bank_type: 'OTHERS',
    total_fee: String(o.totalCents),
    cash_fee: String(o.totalCents),
    fee_type: 'CNY',
    transaction_id: `4200bench${serial}`,
    out_trade_no: o.outTradeNo,
    time_end: formatChinaTime(paidAt),
  };
  if (o.merchant.sub_mch_id !== undefined) f.sub_mch_id = o.merchant.sub_mch_id;
  if (o.merchant.sub_appid !== undefined) f.sub_appid = o.merchant.sub_appid;
  f.sign = signFields(f, key, o.signType as SignType);
  return toXml(f);
}
