/**
 * The social app's wallet on the payer page. Its mini-program (the `weapp` build, the kit's own):
 * `wx.login` → `POST /mp/api/pay` (4.4, `socialPay`) → `Taro.requestPayment`. The H5 page outside
 * any wallet's browser, in development: the sandbox's stand-ins for the login (`/sandbox/login`)
 * and for the payment call (its cashier, which comes back with `sandboxResult`).
 */
import Taro from '@tarojs/taro';
import { KitNetworkError } from '@kit/shared/errors';
import type { MiniProgramPayArgs } from '@kit/shared/wallets';
import { call, serviceBase } from '../lib/api';
import type { PageWallet } from './wallet';

const ID = 'social';
const WAY = 'socialPay';

export const social: PageWallet = {
  id: ID,
  platform: 'weapp',
  mini: {
    kind: 'call',
    wallet: ID,
    way: WAY,
    async loginCode() {
      const { code } = await Taro.login();
      if (!code) throw new Error('login gave no code');
      return code;
    },
    async call(args) {
      const a = args as MiniProgramPayArgs;
      try {
        await Taro.requestPayment({
          timeStamp: String(a.timeStamp),
          nonceStr: a.nonceStr,
          package: a.package,
          // `RSA` on API v3, `MD5`/`HMAC-SHA256` on protocol v2: passed through as the service signed it.
          signType: a.signType,
          paySign: a.paySign,
        });
        return 'paid';
      } catch (e) {
        // The platform's errMsg ("requestPayment:fail …") is for developers; the payer is told plainly.
        return /cancel/i.test((e as { errMsg?: string })?.errMsg ?? '') ? 'cancelled' : 'failed';
      }
    },
  },
  // On H5 Taro.requestPayment resolves without paying: the sandbox cashier stands in.
  sandbox: {
    kind: 'leave',
    wallet: ID,
    way: WAY,
    returns: false,
    loginCode: () => sandboxLoginCode(payerId()),
    leave: (args, back) => sandboxCashierUrl((args as MiniProgramPayArgs).package, back),
  },
};

/** H5 only: the sandbox's stand-in for `wx.login` on the phone. */
async function sandboxLoginCode(user: string): Promise<string> {
  const body = await call<{ code?: unknown }>(`${serviceBase()}/sandbox/login`, { method: 'POST', data: { user } });
  if (typeof body.code !== 'string' || body.code.length === 0) throw new KitNetworkError('the sandbox login gave no code');
  return body.code;
}

/** H5 only: the sandbox cashier page for a mini-program payment; it comes back to `returnUrl`. */
function sandboxCashierUrl(pkg: string, returnUrl: string): string {
  return `${serviceBase()}/sandbox/cashier?package=${encodeURIComponent(pkg)}&return=${encodeURIComponent(returnUrl)}`;
}

const USER_KEY = 'kit-payer-user';

/** A stable stand-in payer for the sandbox login on H5 (one per browser). */
function payerId(): string {
  let id = '';
  try {
    id = Taro.getStorageSync(USER_KEY) || '';
  } catch {
    id = '';
  }
  if (!id) {
    id = `payer-${Math.random().toString(36).slice(2, 10)}`;
    try {
      Taro.setStorageSync(USER_KEY, id);
    } catch {
      // Storage unavailable: a new payer per payment is fine for the sandbox.
    }
  }
  return id;
}
