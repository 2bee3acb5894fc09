/**
 * Alipay's wallet on the payer page. Its mini-program (the `alipay` build): `my.getAuthCode` →
 * `POST /mp/api/pay` (`alipayMini`) → `my.tradePay`. The H5 page in Alipay's browser: `POST
 * /mp/api/pay` (`alipayWap`) → Alipay's payment page, which comes back to this page.
 */
import Taro from '@tarojs/taro';
import type { AlipayMiniArgs, AlipayWapArgs } from '@kit/shared/wallets';
import type { PageWallet } from './wallet';

const ID = 'alipay';

/** `my.tradePay`'s result codes: paid, or being processed / unknown (the order's state will say). */
const TRADE_PAID_OR_PENDING = new Set(['9000', '8000', '6004']);
const TRADE_CANCELLED = '6001';

/** The Alipay mini-program's calls (Taro's Alipay platform; `getAuthCode` is not in Taro's common typings). */
interface MyCalls {
  getAuthCode(opts: { scopes: string }): Promise<{ authCode?: string; code?: string }>;
  tradePay(opts: { tradeNO: string }): Promise<{ resultCode?: string; response?: { resultCode?: string } }>;
}
const my = () => Taro as unknown as MyCalls;

export const alipay: PageWallet = {
  id: ID,
  platform: 'alipay',
  mini: {
    kind: 'call',
    wallet: ID,
    way: 'alipayMini',
    async loginCode() {
      const got = await my().getAuthCode({ scopes: 'auth_base' });
      const code = got.authCode ?? got.code;
      if (!code) throw new Error('getAuthCode gave no code');
      return code;
    },
    async call(args) {
      let code: string | undefined;
      try {
        const paid = await my().tradePay({ tradeNO: (args as AlipayMiniArgs).tradeNO });
        code = paid.resultCode ?? paid.response?.resultCode;
      } catch (e) {
        // A refusal arrives as a failure too, with the same result codes.
        code = (e as { resultCode?: string })?.resultCode;
      }
      if (code && TRADE_PAID_OR_PENDING.has(code)) return 'paid';
      return code === TRADE_CANCELLED ? 'cancelled' : 'failed';
    },
  },
  browser: { kind: 'leave', wallet: ID, way: 'alipayWap', returns: true, leave: (args) => (args as AlipayWapArgs).url },
};
