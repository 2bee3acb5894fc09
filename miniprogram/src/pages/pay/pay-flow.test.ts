/**
 * The payment page's logic with Taro mocked: scene parsing, order states, where the page pays (the
 * wallets' own files: the weapp payment call, the Alipay mini-program's, the H5 hand-offs to Alipay's
 * payment page and to the sandbox cashier), one route for every way and the long-poll wait for the result.
 *
 * @jest-environment jsdom
 * @jest-environment-options {"url": "http://shop.test/mp/#/pages/pay/index?scene=sm.pay%3Fprepayid%3DABC123def456%26f%3D2"}
 */
import { activeOrder, payArgs, type createTaroMock, type FakeRoute } from '../../../test/taro-mock';
import { PayFlow, displayAmount, markedReturnUrl, prepayIdFromOptions, returnUrl, type PayView } from './pay-flow';
import { pagePay } from '../../wallets';

jest.mock('@tarojs/taro', () => {
  const { createTaroMock } = jest.requireActual('../../../test/taro-mock');
  const control = createTaroMock();
  return { __esModule: true, default: control.taro, control };
});
const control = (jest.requireMock('@tarojs/taro') as { control: ReturnType<typeof createTaroMock> }).control;
const taro = control.taro;

const ID = 'ABC123def456';
const SCENE = encodeURIComponent(`sm.pay?prepayid=${ID}&f=2`);

/** A fake kit server: answers /mp/api/* and /sandbox/login from a small state. */
function server(state: { order: Record<string, unknown> | null; waits?: Record<string, unknown>[]; pay?: { statusCode: number; data: unknown } }): FakeRoute {
  return ({ url, method, data }) => {
    const path = new URL(url, 'http://base.invalid').pathname;
    if (method === 'POST' && path.endsWith('/sandbox/login')) return { statusCode: 200, data: { code: 'sandbox-code-7' } };
    if (method === 'POST' && path.endsWith('/mp/api/pay')) {
      if (state.pay) return state.pay;
      const way = (data as { way?: string } | undefined)?.way;
      const args =
        way === 'alipayMini'
          ? { tradeNO: '2025010122001400001234567890' }
          : way === 'alipayWap'
            ? { url: 'https://openapi.alipay.test/gateway.do?method=alipay.trade.wap.pay&sign=x' }
            : payArgs;
      return { statusCode: 200, data: { version: 1, status: 'success', args } };
    }
    if (method === 'GET' && path.includes('/mp/api/orders/')) {
      const wait = url.includes('wait=1');
      // A real server holds a waiting call; this fake answers at once, so a test that forgot to
      // script the waits gets a 400 (ending the loop) instead of spinning forever.
      if (wait && !state.waits?.length) return { statusCode: 400, data: { status: 'fail', error: 'test_unscripted_wait' } };
      if (wait) state.order = state.waits!.shift()!;
      if (!state.order) return { statusCode: 404, data: { version: 1, status: 'fail', error: 'not_found', msg: 'no such order' } };
      return { statusCode: 200, data: state.order };
    }
    return { statusCode: 404, data: { status: 'fail', error: 'route_not_found' } };
  };
}

function flow(extra: Partial<ConstructorParameters<typeof PayFlow>[0]> = {}) {
  const views: PayView[] = [];
  const f = new PayFlow({ onChange: (v) => views.push(v), ...extra });
  return { f, views, kinds: () => views.map((v) => v.kind) };
}

beforeEach(() => {
  control.calls.length = 0;
  jest.clearAllMocks();
  process.env.TARO_ENV = 'weapp';
  (globalThis as { KIT_API_BASE?: string }).KIT_API_BASE = 'https://pay.example.com/';
});

describe('reading the prepay id from the launch options', () => {
  it('takes the id from a URL-encoded mini-program scene, ignoring extra parameters', () => {
    expect(prepayIdFromOptions({ scene: SCENE })).toBe(ID);
    expect(prepayIdFromOptions({ scene: `sm.pay?prepayid=${ID}` })).toBe(ID);
  });

  it('does not depend on the id being first, its length or its prefix', () => {
    expect(prepayIdFromOptions({ scene: encodeURIComponent('sm.pay?f=2&prepayid=Q1') })).toBe('Q1');
    const long = 'X'.repeat(40);
    expect(prepayIdFromOptions({ scene: encodeURIComponent(`sm.pay?prepayid=${long}&f=2&g=3`) })).toBe(long);
    expect(prepayIdFromOptions({ scene: 'sm.pay?xprepayid=NOPE' })).toBeNull();
  });

  it('takes the id from a plain QR link (the whole URL in `q`), even when the link holds an encoded scene', () => {
    expect(prepayIdFromOptions({ q: encodeURIComponent(`https://shop.test/pay?prepayid=${ID}&f=2`) })).toBe(ID);
    const posLink = `https://shop.test/mp/#/pages/pay/index?scene=${SCENE}`;
    expect(prepayIdFromOptions({ q: encodeURIComponent(posLink) })).toBe(ID);
  });

  it('takes the id from the one code for any wallet (`/p/<id>`), in `q` (the social app) or `qrCode` (Alipay)', () => {
    expect(prepayIdFromOptions({ q: encodeURIComponent(`https://shop.test/p/${ID}`) })).toBe(ID);
    expect(prepayIdFromOptions({ qrCode: `https://shop.test/kit/p/${ID}?x=1` })).toBe(ID);
    expect(prepayIdFromOptions({ q: encodeURIComponent('https://shop.test/p/') })).toBeNull();
    expect(prepayIdFromOptions({ scene: `/p/${ID}` })).toBeNull();
  });

  it('finds nothing in an empty or unrelated launch', () => {
    expect(prepayIdFromOptions({})).toBeNull();
    expect(prepayIdFromOptions({ scene: '1011' })).toBeNull();
  });
});

describe('helpers', () => {
  it('shows amounts in the shared money format', () => {
    expect(displayAmount('12.3')).toBe('¥12.30');
    expect(displayAmount('7')).toBe('¥7.00');
    expect(displayAmount('1000000.00')).toBe('¥1,000,000.00');
  });

  it('returns to this page without a previous sandbox result', () => {
    const base = `http://shop.test/mp/#/pages/pay/index?scene=${SCENE}`;
    expect(returnUrl(`${base}&sandboxResult=cancel`)).toBe(base);
    expect(returnUrl(`http://shop.test/mp/#/pages/pay/index?sandboxResult=paid&scene=${SCENE}`)).toBe(base);
    expect(returnUrl(base)).toBe(base);
  });
});

describe('where the page pays', () => {
  const SOCIAL_UA = 'Mozilla/5.0 (Linux; Android 14) Mobile Safari/537.36 MicroMessenger/8.0.50.2701(0x28003237) NetType/WIFI';
  const ALIPAY_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Mobile/15E148 AlipayClient/10.6.10.6000 Language/zh-Hans';
  it('pays with the wallet of its build, and as H5 with a wallet’s own page in its browser only (the sandbox elsewhere)', () => {
    const how = (platform: string, ua: string) => {
      const p = pagePay(platform, ua);
      return [p.kind, p.wallet, p.way];
    };
    expect(how('weapp', ALIPAY_UA)).toEqual(['call', 'social', 'socialPay']);
    expect(how('alipay', SOCIAL_UA)).toEqual(['call', 'alipay', 'alipayMini']);
    expect(how('h5', ALIPAY_UA)).toEqual(['leave', 'alipay', 'alipayWap']);
    expect(how('h5', SOCIAL_UA)).toEqual(['leave', 'social', 'socialPay']);
    expect(how('h5', 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36')).toEqual(['leave', 'social', 'socialPay']);
  });

  it("comes back from a wallet's page marked in the hash query, which the wallet's own parameters do not touch", () => {
    expect(markedReturnUrl(`http://shop.test/mp/#/pages/pay/index?scene=${SCENE}&alipayReturn=1`, 'alipay')).toBe(
      `http://shop.test/mp/#/pages/pay/index?scene=${SCENE}&alipayReturn=1`,
    );
    expect(markedReturnUrl('http://shop.test/mp/#/pages/pay/index', 'alipay')).toBe('http://shop.test/mp/#/pages/pay/index?alipayReturn=1');
  });
});

describe('opening an order', () => {
  // What the page's onLoad receives (docs/screens.md): the platform's code (`getwxacodeunlimit`) gives
  // its scene URL-encoded once; a plain link code gives the whole link, URL-encoded, in `q`.
  it.each([
    ['the mini-program code the platform drew', { scene: encodeURIComponent(`sm.pay?prepayid=${ID}`) }],
    [
      'a plain link code',
      {
        q: encodeURIComponent(`https://pay.example.com/mp/#/pages/pay/index?scene=${encodeURIComponent(`sm.pay?prepayid=${ID}`)}`),
        scancode_time: '1700000000',
      },
    ],
  ])('opens the order of %s, ready to pay', async (_what, launch) => {
    control.setRoute(server({ order: activeOrder({ prepayId: ID }) }));
    const { f, views } = flow();
    await f.start(launch);
    expect(control.calls[0].url).toBe(`https://pay.example.com/mp/api/orders/${ID}?wait=0`);
    expect(views.at(-1)).toMatchObject({ kind: 'ready', order: { prepayId: ID } });
  });

  it('shows "missing" with no request when the code holds no id', async () => {
    const { f, views } = flow();
    await f.start({ scene: 'something-else' });
    expect(views.at(-1)).toEqual({ kind: 'missing' });
    expect(control.calls).toHaveLength(0);
  });

  it('shows "missing" when the router does not know the order', async () => {
    control.setRoute(server({ order: null }));
    const { f, kinds } = flow();
    await f.start({ scene: SCENE });
    expect(kinds()).toEqual(['loading', 'missing']);
    expect(control.calls[0].url).toBe(`https://pay.example.com/mp/api/orders/${ID}?wait=0`);
  });

  it('shows an expired order without a pay button', async () => {
    control.setRoute(server({ order: activeOrder({ status: 'cancel' }) }));
    const { f, views } = flow();
    await f.start({ scene: SCENE });
    expect(views.at(-1)!.kind).toBe('expired');
  });

  it('shows an already paid order as paid, and a refunded one as refunded, with nothing to pay', async () => {
    control.setRoute(server({ order: activeOrder({ status: 'finish', paymentTime: '2025-01-01T00:01:00.000Z' }) }));
    const { f, views } = flow();
    await f.start({ scene: SCENE });
    expect(views.at(-1)).toMatchObject({ kind: 'paid', order: { status: 'finish' } });
    control.setRoute(server({ order: activeOrder({ status: 'refunded' }) }));
    await f.start({ scene: SCENE });
    expect(views.at(-1)!.kind).toBe('refunded');
  });

  it('shows the merchant and amount of an active order, ready to pay', async () => {
    control.setRoute(server({ order: activeOrder() }));
    const { f, views } = flow();
    await f.start({ scene: SCENE });
    expect(views.at(-1)).toMatchObject({ kind: 'ready', order: { merchantDisplayName: 'Corner Shop', totalAmount: '12.34' } });
  });

  it('offers a retry when the order cannot be read, and recovers', async () => {
    control.setRoute(() => ({ statusCode: 503, data: { status: 'fail', error: 'mp_upstream_unreachable', msg: 'down' } }));
    const { f, views } = flow();
    await f.start({ scene: SCENE });
    // The router's error id and code, for the page to put in words (never its developer message).
    expect(views.at(-1)).toEqual({ kind: 'error', problem: { error: 'mp_upstream_unreachable', code: '503' } });
    control.setRoute(server({ order: activeOrder() }));
    await f.retry({ scene: SCENE });
    expect(views.at(-1)!.kind).toBe('ready');
  });
});

describe('paying in the mini-program (weapp)', () => {
  it('logs in, gets the arguments from the router, pays and waits for the result with immediate re-calls', async () => {
    const state = { order: activeOrder(), waits: [activeOrder(), activeOrder({ status: 'finish', paymentTime: '2025-01-01T00:01:00.000Z' })] };
    control.setRoute(server(state));
    const { f, views, kinds } = flow();
    await f.start({ scene: SCENE });
    await f.pay();
    expect(taro.login).toHaveBeenCalledTimes(1);
    const payCall = control.calls.find((c) => c.url.endsWith('/mp/api/pay'))!;
    expect(payCall).toMatchObject({ method: 'POST', data: { prepayId: ID, way: 'socialPay', code: 'wx-code-1' } });
    expect(taro.requestPayment).toHaveBeenCalledWith({ ...payArgs, timeStamp: String(payArgs.timeStamp) });
    const waits = control.calls.filter((c) => c.url.includes('wait=1'));
    expect(waits).toHaveLength(2);
    expect(waits[0].timeout).toBeGreaterThanOrEqual(55_000);
    expect(kinds()).toEqual(['loading', 'ready', 'paying', 'waiting', 'success']);
    expect(views.at(-1)).toMatchObject({ kind: 'success', order: { status: 'finish' } });
  });

  it('keeps the page ready to pay again when the payer cancels', async () => {
    control.setRoute(server({ order: activeOrder(), waits: [activeOrder({ status: 'finish' })] }));
    taro.requestPayment.mockRejectedValueOnce({ errMsg: 'requestPayment:fail cancel' });
    const { f, views } = flow();
    await f.start({ scene: SCENE });
    await f.pay();
    expect(views.at(-1)).toMatchObject({ kind: 'ready', notice: { kind: 'cancelled' } });
    await f.pay();
    expect(taro.requestPayment).toHaveBeenCalledTimes(2);
    expect(views.at(-1)!.kind).toBe('success');
  });

  it('asks to scan again when 4.4 does not answer success', async () => {
    control.setRoute(
      server({ order: activeOrder(), pay: { statusCode: 200, data: { version: 1, status: 'fail', error: 'order_not_active', msg: 'expired' } } }),
    );
    const { f, views } = flow();
    await f.start({ scene: SCENE });
    await f.pay();
    expect(views.at(-1)).toMatchObject({ kind: 'rescan', order: { totalAmount: '12.34' } });
    expect(taro.requestPayment).not.toHaveBeenCalled();
  });

  it('stays ready with a message when the login code is refused', async () => {
    control.setRoute(
      server({ order: activeOrder(), pay: { statusCode: 400, data: { version: 1, status: 'fail', error: 'mp_login_failed', msg: 'code refused' } } }),
    );
    const { f, views } = flow();
    await f.start({ scene: SCENE });
    await f.pay();
    expect(views.at(-1)).toMatchObject({ kind: 'ready', notice: { kind: 'failed', problem: { error: 'mp_login_failed' } } });
  });

  it('shows "expired" when the order leaves active without being paid while waiting', async () => {
    control.setRoute(server({ order: activeOrder(), waits: [activeOrder({ status: 'cancel' })] }));
    const { f, views } = flow();
    await f.start({ scene: SCENE });
    await f.pay();
    expect(views.at(-1)!.kind).toBe('expired');
  });
});

describe('paying in the H5 build (sandbox cashier)', () => {
  beforeEach(() => {
    process.env.TARO_ENV = 'h5';
  });

  it('gets the login code from the sandbox, hands the arguments to the cashier and never calls requestPayment', async () => {
    control.setRoute(server({ order: activeOrder() }));
    const leave = jest.fn();
    const href = `http://shop.test/mp/#/pages/pay/index?scene=${SCENE}&sandboxResult=cancel`;
    const { f } = flow({ leave, href: () => href });
    await f.start({ scene: SCENE });
    await f.pay();
    expect(control.calls[0].url).toBe(`http://shop.test/mp/api/orders/${ID}?wait=0`);
    expect(control.calls.find((c) => c.url === 'http://shop.test/sandbox/login')).toMatchObject({ method: 'POST' });
    expect(control.calls.find((c) => c.url.endsWith('/mp/api/pay'))).toMatchObject({ data: { prepayId: ID, way: 'socialPay', code: 'sandbox-code-7' } });
    expect(taro.login).not.toHaveBeenCalled();
    expect(taro.requestPayment).not.toHaveBeenCalled();
    expect(leave).toHaveBeenCalledTimes(1);
    const target = new URL(leave.mock.calls[0][0]);
    expect(target.origin + target.pathname).toBe('http://shop.test/sandbox/cashier');
    expect(target.searchParams.get('package')).toBe(payArgs.package);
    expect(target.searchParams.get('return')).toBe(`http://shop.test/mp/#/pages/pay/index?scene=${SCENE}`);
  });

  it('waits for the result when the cashier reports "paid"', async () => {
    control.setRoute(server({ order: activeOrder(), waits: [activeOrder({ status: 'finish' })] }));
    const { f, kinds } = flow();
    await f.start({ scene: SCENE, sandboxResult: 'paid' });
    expect(kinds()).toEqual(['loading', 'waiting', 'success']);
  });

  it('is ready to pay again when the cashier reports "cancel"', async () => {
    control.setRoute(server({ order: activeOrder() }));
    const { f, views } = flow();
    await f.start({ scene: SCENE, sandboxResult: 'cancel' });
    expect(views.at(-1)).toMatchObject({ kind: 'ready', notice: { kind: 'cancelled' } });
  });

  it('derives the service base from the page URL under a path prefix', async () => {
    window.history.replaceState(null, '', '/kit/mp/#/pages/pay/index');
    control.setRoute(server({ order: activeOrder() }));
    const { f } = flow();
    await f.start({ scene: SCENE });
    expect(control.calls[0].url).toBe(`http://shop.test/kit/mp/api/orders/${ID}?wait=0`);
    window.history.replaceState(null, '', '/mp/');
  });
});

describe('paying in the Alipay mini-program (alipay)', () => {
  beforeEach(() => {
    process.env.TARO_ENV = 'alipay';
  });

  it('gets the auth code, the trade from the router, pays with my.tradePay and waits for the result', async () => {
    control.setRoute(server({ order: activeOrder(), waits: [activeOrder({ status: 'finish', paymentTime: '2025-01-01T00:01:00.000Z' })] }));
    const { f, kinds } = flow();
    await f.start({ scene: SCENE });
    await f.pay();
    expect(taro.getAuthCode).toHaveBeenCalledWith({ scopes: 'auth_base' });
    // The one route for every way, naming the wallet's way and sending its login code.
    expect(control.calls.filter((c) => c.method === 'POST')).toEqual([
      expect.objectContaining({ url: 'https://pay.example.com/mp/api/pay', data: { prepayId: ID, way: 'alipayMini', code: 'ali-auth-1' } }),
    ]);
    expect(taro.tradePay).toHaveBeenCalledWith({ tradeNO: '2025010122001400001234567890' });
    expect(taro.login).not.toHaveBeenCalled();
    expect(taro.requestPayment).not.toHaveBeenCalled();
    expect(kinds()).toEqual(['loading', 'ready', 'paying', 'waiting', 'success']);
  });

  it('stays ready to pay again when the payer cancels in Alipay, and says so', async () => {
    control.setRoute(server({ order: activeOrder() }));
    taro.tradePay.mockResolvedValueOnce({ resultCode: '6001' });
    const { f } = flow();
    await f.start({ scene: SCENE });
    await f.pay();
    expect(f.current).toMatchObject({ kind: 'ready', notice: { kind: 'cancelled' } });
  });

  it('stays ready with a message when Alipay refuses the payment', async () => {
    control.setRoute(server({ order: activeOrder() }));
    taro.tradePay.mockRejectedValueOnce({ resultCode: '4000', errorMessage: 'system error' });
    const { f } = flow();
    await f.start({ scene: SCENE });
    await f.pay();
    expect(f.current).toMatchObject({ kind: 'ready', notice: { kind: 'failed' } });
  });

  it('asks to scan again when the router does not answer success', async () => {
    control.setRoute(server({ order: activeOrder(), pay: { statusCode: 200, data: { version: 1, status: 'fail', error: 'order_not_active' } } }));
    const { f } = flow();
    await f.start({ scene: SCENE });
    await f.pay();
    expect(f.current.kind).toBe('rescan');
    expect(taro.tradePay).not.toHaveBeenCalled();
  });
});

describe("paying on the H5 page in Alipay's browser", () => {
  const ALIPAY_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Mobile/15E148 AlipayClient/10.6.10.6000 Language/zh-Hans';
  beforeEach(() => {
    process.env.TARO_ENV = 'h5';
  });

  it("leaves for Alipay's payment page with a return URL back to this page, and asks nothing of the social sandbox", async () => {
    control.setRoute(server({ order: activeOrder() }));
    const leave = jest.fn();
    const href = `http://shop.test/mp/#/pages/pay/index?scene=${SCENE}`;
    const { f } = flow({ leave, href: () => href, userAgent: () => ALIPAY_UA });
    await f.start({ scene: SCENE });
    await f.pay();
    expect(control.calls.filter((c) => c.method === 'POST')).toEqual([
      expect.objectContaining({ url: 'http://shop.test/mp/api/pay', data: { prepayId: ID, way: 'alipayWap', returnUrl: `${href}&alipayReturn=1` } }),
    ]);
    expect(control.calls.some((c) => c.url.endsWith('/sandbox/login'))).toBe(false);
    expect(leave).toHaveBeenCalledWith('https://openapi.alipay.test/gateway.do?method=alipay.trade.wap.pay&sign=x');
  });

  it('waits for the result when it comes back from Alipay', async () => {
    control.setRoute(server({ order: activeOrder(), waits: [activeOrder({ status: 'finish' })] }));
    const { f, kinds } = flow({ userAgent: () => ALIPAY_UA });
    await f.start({ scene: SCENE, alipayReturn: '1' });
    expect(kinds()).toEqual(['loading', 'waiting', 'success']);
  });

  it('comes back from Alipay to an order the social app paid first: its payment was a second one, refunded automatically', async () => {
    const paidBySocial = { status: 'finish', paymentTime: '2025-01-01T00:01:00.000Z', paymentChannel: 'SocialNative' };
    const second = { paymentChannel: 'Alipay', amount: '12.34', refund: 'refunded' };
    control.setRoute(server({ order: activeOrder(), waits: [activeOrder({ ...paidBySocial, secondPayments: [second] })] }));
    const { f, kinds, views } = flow({ userAgent: () => ALIPAY_UA });
    await f.start({ scene: SCENE, alipayReturn: '1' });
    expect(kinds()).toEqual(['loading', 'waiting', 'paidTwice']);
    expect(views.at(-1)).toMatchObject({ order: { secondPayments: [second] } });
  });

  it('comes back from Alipay to an order Alipay paid, with a second payment through the social app: its own receipt', async () => {
    const second = { paymentChannel: 'SocialNative', amount: '12.34', refund: 'refunding' };
    control.setRoute(server({ order: activeOrder(), waits: [activeOrder({ status: 'finish', paymentChannel: 'Alipay', secondPayments: [second] })] }));
    const { f, kinds } = flow({ userAgent: () => ALIPAY_UA });
    await f.start({ scene: SCENE, alipayReturn: '1' });
    expect(kinds()).toEqual(['loading', 'waiting', 'success']);
  });

  it("keeps the social app's browser on today's way (the sandbox cashier)", async () => {
    control.setRoute(server({ order: activeOrder() }));
    const leave = jest.fn();
    const { f } = flow({ leave, href: () => 'http://shop.test/mp/#/pages/pay/index', userAgent: () => 'Mozilla/5.0 MicroMessenger/8.0.50' });
    await f.start({ scene: SCENE });
    await f.pay();
    expect(control.calls.find((c) => c.url.endsWith('/mp/api/pay'))).toMatchObject({ data: { way: 'socialPay' } });
    expect(new URL(leave.mock.calls[0][0]).pathname).toBe('/sandbox/cashier');
  });
});
