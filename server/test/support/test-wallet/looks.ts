/**
 * How the test-only wallet Acme Pay looks on screens (docs/architecture.md, "Adding a wallet", step 4:
 * `shared/src/wallets/looks/acme.ts` for a wallet of the kit): its names, colour and channel's words.
 */
import { defineLooks } from '@kit/shared/wallets/looks';

export const acmeLooks = defineLooks({
  id: 'acme',
  names: { en: 'Acme Pay', 'zh-CN': '艾克米支付' },
  color: '#b4451f',
  payerBrowser: /\bAcmePay\//,
  channels: {
    Acme: {
      names: { en: 'Acme Pay', 'zh-CN': '艾克米支付' },
      accountNames: { en: 'Acme Pay payments', 'zh-CN': '艾克米支付收款' },
      payerNames: { en: 'Acme Pay', 'zh-CN': '艾克米支付' },
      paidWith: { en: 'Paid with Acme Pay', 'zh-CN': '艾克米支付已付款' },
    },
  },
});
