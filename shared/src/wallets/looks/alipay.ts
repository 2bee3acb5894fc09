/** How Alipay's wallet looks on screens (its declaration: `../alipay.ts`). */
import { defineLooks } from './looks';

export const alipayLooks = defineLooks({
  id: 'alipay',
  names: { en: 'Alipay', 'zh-CN': '支付宝' },
  color: '#1677ff',
  payerBrowser: /\bAlipayClient\b/i,
  channels: {
    Alipay: {
      names: { en: 'Alipay', 'zh-CN': '支付宝' },
      accountNames: { en: 'Alipay', 'zh-CN': '支付宝' },
      payerNames: { en: 'Alipay', 'zh-CN': '支付宝' },
      paidWith: { en: 'Paid with Alipay', 'zh-CN': '支付宝已付款' },
    },
  },
});
