/** The payment channels as modules (docs/payments.md): what the rest of the service imports. */
export type {
  BillDownload,
  BillSource,
  ChannelAdapter,
  ChannelModule,
  MerchantFields,
  OrderCalls,
  OrderForChannel,
  ProfitSharingCalls,
  SandboxRules,
  TradeType,
  V3Side,
} from './types';
export { v2OrderCalls } from './v2-order-calls';
export { ChannelEndpoints } from './endpoints';
export { definedOnly, merchantOf } from './params';
export { CHANNEL_MODULES, REALMS, isRealm, realmModule, type Realm } from './registry';
