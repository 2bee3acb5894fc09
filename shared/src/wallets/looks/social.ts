/** How the social app's wallet looks on screens (its declaration: `../social.ts`). */
import { defineLooks } from './looks';

export const socialLooks = defineLooks({
  id: 'social',
  names: { en: 'the social app', 'zh-CN': '社交应用' },
  color: '#07c160',
  payerBrowser: /\bMicroMessenger\//i,
  channels: {
    SocialNative: {
      names: { en: 'Social app', 'zh-CN': '社交应用' },
      accountNames: { en: 'Social app payments', 'zh-CN': '社交支付' },
      payerNames: { en: 'the social app', 'zh-CN': '社交应用' },
      paidWith: { en: 'Paid with the social app', 'zh-CN': '社交应用已付款' },
    },
    SocialCardNetworkBizSmall: {
      names: { en: 'Card', 'zh-CN': '银行卡' },
      accountNames: { en: 'Card network (small businesses)', 'zh-CN': '银行卡（小微商户）' },
      payerNames: { en: 'a bank card', 'zh-CN': '银行卡' },
      paidWith: { en: 'Paid by card', 'zh-CN': '银行卡已付款' },
    },
  },
});
