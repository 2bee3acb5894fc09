/** The Alipay provider (docs/payments.md): its registry entry, and its protocol layer (settings, RSA2 signing, the gateway client, notifications). */
export { alipay } from './provider';
export {
  alipaySettingsShape,
  alipaySettingsSchema,
  alipayCredentials,
  alipaySettingsProblem,
  AlipaySettingsError,
  ALIPAY_KEY_SETTINGS,
  ALIPAY_DEFAULT_GATEWAY,
} from './settings';
export type { AlipaySettings, AlipayCredentials, AlipayTrust } from './settings';
export { AlipayClient } from './client';
export type { AlipayClientOptions, AlipayOrder, AlipayTradeRef, AlipayTransport } from './client';
export { AlipayError } from './errors';
export type { AlipayFailure, AlipayErrorDetails } from './errors';
export { yuanToCents } from './facts';
export type { AlipayTradeState, AlipayTradeFacts, AlipayCloseFacts, AlipayRefundFacts, AlipayRefundQueryFacts, AlipayBillFacts } from './facts';
export { readNotification, parseNotificationBody, AlipayNotificationError, ALIPAY_NOTIFY_ACK } from './notification';
export type { AlipayNotificationFacts } from './notification';
export { certSn, rootCertSn } from './cert-sn';
export { alipayTime, parseAlipayTime } from './time';
export { alipayDailyBill, alipayAccountOf, BILL_READY_AT } from './daily-bill';
export { readAlipayBill, readAlipayBillFiles, AlipayBillFormatError, DETAIL_COLUMNS, SUMMARY_COLUMNS } from './trade-bill';
export type { AlipayBillFile, AlipayBillRow, AlipayBillTotals } from './trade-bill';
export { readZip, ZipFormatError } from './zip-reader';
export type { ZipEntry } from './zip-reader';
