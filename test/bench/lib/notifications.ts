/**
 * Payment notifications as the social payment platform sends them, built from the channel order the
 * service created (`pay_channel_orders`, read with SQL): protocol v2 XML signed with the platform key
 * and the sign type the order was placed with, or API v3 (the JSON envelope, its `resource`
 * AEAD_AES_256_GCM-encrypted under the APIv3 key, `Wechatpay-Timestamp/-Nonce/-Signature/-Serial`
 * signed with the platform's private key). Built with the kit's own helpers: the sandbox's v3
 * envelope and signature, the protocol's v2 signing.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { PlatformKeyring } from '../../../server/src/payments/providers/social-v3/platform-keys';
import { signFields, type SignType } from '../../../server/src/payments/providers/protocol-v2/sign';
import { toXml } from '../../../server/src/payments/providers/protocol-v2/xml';
import { formatChinaTime } from '../../../server/src/payments/providers/china-time';
import { rfc3339Cst } from '../../../server/src/payments/providers/social-v3/partner-api';
import { envelope, platformSignature } from '@kit/sandbox';

/** What a notification needs to know about one channel order. */
export interface ChannelOrder {
  prepayId: string;
  outTradeNo: string;
  totalCents: number;
  signType: string;
  /** The unified order's merchant fields (`appid`, `mch_id`, `sub_mch_id`…). */
  merchant: Record<string, string>;
}

/** The platform's notification protocols the bench can speak. */
export type NotificationProtocol = 'v2' | 'v3';

/**
 * The platform's side of the service's settings, in plain strings (it crosses to the load processes
 * as JSON): the v2 API key (`PAY_SP_KEY`), and on v3 the private key of the public key the service
 * trusts (`PAY_PLATFORM_PUBLIC_KEY`), its id (`PAY_PLATFORM_PUBLIC_KEY_ID`) and the APIv3 key (`PAY_V3_KEY`).
 */
export interface PlatformSide {
  protocol: NotificationProtocol;
  v2Key: string;
  v3?: { privateKeyPem: string; publicKeyId: string; apiV3Key: string };
}

/** One notification ready to send: where, with which headers, and its body. */
export interface NotificationRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A payment notification of `o` as `platform` sends it; a new protocol adds its case here. */
export function payNotification(platform: PlatformSide, o: ChannelOrder, serial: string): NotificationRequest {
  switch (platform.protocol) {
    case 'v2':
      return { path: '/pay-notify/social/pay', headers: { 'content-type': 'text/xml' }, body: payNotificationXml(o, platform.v2Key, serial) };
    case 'v3': {
      if (!platform.v3) throw new Error('a v3 notification needs the platform key and the APIv3 key');
      const body = payNotificationV3(o, platform.v3.apiV3Key, serial);
      const signing = { privateKey: privateKey(platform.v3.privateKeyPem), serial: platform.v3.publicKeyId };
      return { path: '/pay-notify/social/pay', headers: { 'content-type': 'application/json', ...platformSignature(signing, body, Date.now()) }, body };
    }
    default:
      throw new Error(`notification protocol "${String(platform.protocol)}" is not supported by the bench`);
  }
}

/** Whether the service acknowledged: a 2xx, with `SUCCESS` in the XML on v2 (v3 answers 204 with no body). */
export function acknowledged(protocol: NotificationProtocol, status: number, body: string): boolean {
  if (status < 200 || status > 299) return false;
  return protocol === 'v3' || body.includes('SUCCESS');
}

const keys = new Map<string, KeyObject>();
const privateKey = (pem: string): KeyObject => {
  let k = keys.get(pem);
  if (!k) keys.set(pem, (k = createPrivateKey(pem)));
  return k;
};

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

/** The v3 envelope of a `TRANSACTION.SUCCESS` whose resource is the partner transaction, as the sandbox's are. */
export function payNotificationV3(o: ChannelOrder, apiV3Key: string, serial: string, paidAt = Date.now()): string {
  const transaction = {
    sp_appid: o.merchant.appid,
    sp_mchid: o.merchant.mch_id,
    ...(o.merchant.sub_appid !== undefined ? { sub_appid: o.merchant.sub_appid } : {}),
    sub_mchid: o.merchant.sub_mch_id ?? '',
    out_trade_no: o.outTradeNo,
    transaction_id: `4200bench${serial}`,
    trade_type: 'NATIVE',
    trade_state: 'SUCCESS',
    trade_state_desc: '支付成功',
    bank_type: 'OTHERS',
    success_time: rfc3339Cst(paidAt),
    payer: { sp_openid: 'obenchpayer' },
    amount: { total: o.totalCents, payer_total: o.totalCents, currency: 'CNY', payer_currency: 'CNY' },
  };
  return envelope({ apiV3Key }, 'TRANSACTION.SUCCESS', '支付成功', 'transaction', transaction, paidAt);
}

/** The keyring a service configured with the bench's v3 platform side verifies notifications with (public-key mode). */
export function platformKeyring(v3: NonNullable<PlatformSide['v3']>): PlatformKeyring {
  return PlatformKeyring.publicKeyMode(v3.publicKeyId, createPublicKey(privateKey(v3.privateKeyPem)));
}
