/** @jest-environment jsdom */
import { fireEvent, screen, within } from '@testing-library/dom';
import { App } from './App';
import { PosAppContext, createPosApp } from '../state/app';
import { act, flush, render } from '../test/render';
import { deferred, detail, fakeApi, order, unauthorized, type FakeApi } from '../test/fake-api';
import type { PrepayDetail } from '@kit/shared/api/prepay';
import type { PosWaitResponse } from '@kit/shared/api/pos';
import { KitApiError } from '@kit/shared/errors';

let mounted: { unmount(): void } | null = null;

async function start(api: FakeApi) {
  const app = createPosApp({ api: (hook) => wrap(api, hook) });
  mounted = render(
    <PosAppContext.Provider value={app}>
      <App />
    </PosAppContext.Provider>,
  );
  await flush();
  return app;
}

/** Routes the fake's 401s through the same hook the real HTTP client calls. */
function wrap(api: FakeApi, onUnauthorized: () => void): FakeApi {
  const wrapped: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [name, fn] of Object.entries(api)) {
    wrapped[name] = (...args: unknown[]) =>
      (fn as (...a: unknown[]) => Promise<unknown>)(...args).catch((e: unknown) => {
        if (e instanceof KitApiError && e.httpStatus === 401 && name !== 'login') onUnauthorized();
        throw e;
      });
  }
  return wrapped as unknown as FakeApi;
}

const click = async (el: Element) => {
  await act(async () => {
    fireEvent.click(el);
  });
  await flush();
};
const change = async (testId: string, value: string) => {
  await act(async () => {
    fireEvent.change(screen.getByTestId(testId), { target: { value } });
  });
};
const typeKeys = async (keys: string) => {
  for (const k of keys) await click(screen.getByTestId(`key-${k}`));
};

beforeEach(() => {
  window.location.hash = '';
});
afterEach(() => {
  mounted?.unmount();
  mounted = null;
  window.localStorage.clear();
  jest.useRealTimers();
});

describe('POS display', () => {
  it('logs in, and says so plainly when the password is wrong', async () => {
    const api = fakeApi();
    api.session.mockResolvedValue({ version: 1, status: 'success', session: null });
    api.login.mockRejectedValueOnce(new KitApiError(401, { status: 'fail', error: 'login_failed', msg: 'Wrong user id or password' }));
    await start(api);
    await change('login-user', 'SMshop1');
    await change('login-pw', 'nope');
    await click(screen.getByTestId('login-submit'));
    expect(screen.getByTestId('login-message').textContent).toBe('Wrong merchant id or password.');
    await click(screen.getByTestId('login-submit'));
    expect(api.login).toHaveBeenLastCalledWith('SMshop1', 'nope');
    expect(screen.getByTestId('shop-name').textContent).toContain('Corner Shop');
  });

  it('checks the amount before sending it, then shows the payment code, amount and merchant', async () => {
    const api = fakeApi();
    await start(api);
    await typeKeys('0');
    expect((screen.getByTestId('charge-submit') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('amount-message').textContent).toMatch(/greater than zero/);
    await typeKeys('12.345');
    expect(screen.getByTestId('amount-entry').textContent).toBe('¥12.34');
    expect(screen.getByTestId('amount-message').textContent).toBe('Customer pays ¥12.34');
    await click(screen.getByTestId('charge-submit'));
    expect(api.createOrder).toHaveBeenCalledWith('12.34');
    expect(window.location.hash).toBe('#/pay/P1abc');
    expect(screen.getByTestId('pay-amount').textContent).toBe('¥12.34');
    expect(screen.getByTestId('pay-merchant').textContent).toBe('Corner Shop');
    expect(screen.getByTestId('order-status').dataset.status).toBe('active');
    const miniProgramSrc = (screen.getByTestId('pay-qr') as HTMLImageElement).src;
    expect(miniProgramSrc).toMatch(/^data:image\/svg\+xml/);
    await click(screen.getByTestId('view-scancode'));
    expect((screen.getByTestId('pay-qr') as HTMLImageElement).src).not.toBe(miniProgramSrc);
  });

  it('explains a missing scan-code QR and keeps the mini-program code usable', async () => {
    const api = fakeApi();
    api.createOrder.mockResolvedValue({
      version: 1,
      status: 'success',
      order: order({ codeUrl: null, codeUrlError: 'The merchant has no payment parameters for this channel', codeUrlErrorId: 'payment_params_missing' }),
    });
    await start(api);
    await typeKeys('5');
    await click(screen.getByTestId('charge-submit'));
    await click(screen.getByTestId('view-scancode'));
    expect(screen.getByTestId('codeurl-error').textContent).toBe(
      'The scan-code QR is not available. This shop has no payment settings for this kind of code yet. Use the mini-program code.',
    );
    await click(screen.getByTestId('view-miniprogram'));
    expect(screen.getByTestId('pay-qr')).toBeTruthy();
  });

  it("shows the platform's mini-program code, and when the platform cannot be reached says so and offers the scan-code QR", async () => {
    const api = fakeApi();
    api.createOrder.mockResolvedValue({ version: 1, status: 'success', order: order({ miniProgramCode: 'platform' }) });
    api.miniProgramCode.mockRejectedValueOnce(
      new KitApiError(503, { status: 'fail', error: 'mp_code_unavailable', msg: 'getwxacodeunlimit: the platform cannot be reached' }),
    );
    await start(api);
    await typeKeys('5');
    await click(screen.getByTestId('charge-submit'));
    await click(screen.getByTestId('view-miniprogram'));
    expect(api.miniProgramCode).toHaveBeenCalledWith('P1abc', expect.any(AbortSignal));
    expect(screen.queryByTestId('pay-qr')).toBeNull();
    expect(screen.getByTestId('mp-code-error').textContent).toContain(
      'The mini-program code is not available. The social platform cannot be reached right now. Use the scan-code QR.',
    );
    await click(screen.getByTestId('mp-code-retry'));
    expect((screen.getByTestId('pay-qr') as HTMLImageElement).src).toMatch(/^data:image\/png;base64,/);
    expect(screen.getByTestId('pay-qr').getAttribute('data-code')).toBe('platform');

    api.miniProgramCode.mockRejectedValueOnce(new KitApiError(502, { status: 'fail', error: 'mp_code_failed', msg: 'errcode 41030' }));
    await click(screen.getByTestId('new-sale'));
    await typeKeys('6');
    await click(screen.getByTestId('charge-submit'));
    await click(screen.getByTestId('mp-code-to-scan'));
    expect(screen.getByTestId('view-scancode').getAttribute('aria-selected')).toBe('true');
    expect(screen.getByTestId('pay-qr').getAttribute('data-code')).toBeNull();
  });

  it('shows the one code for any wallet first, then names the wallet that paid, in both languages', async () => {
    const api = fakeApi();
    const held = deferred<PosWaitResponse>();
    api.waitOrder.mockReturnValueOnce(held.promise);
    await start(api);
    await typeKeys('8');
    await click(screen.getByTestId('charge-submit'));
    expect(screen.getByTestId('view-anywallet').getAttribute('aria-selected')).toBe('true');
    const tabs = screen.getAllByRole('tab').map((b) => b.dataset.testid);
    expect(tabs).toEqual(['view-anywallet', 'view-miniprogram', 'view-scancode', 'view-payercode']);
    expect(screen.getByTestId('pay-qr').getAttribute('alt')).toMatch(/any wallet/);
    expect(screen.getByText('Scan with the social app or Alipay to pay')).toBeTruthy();
    await act(async () => held.resolve(detail({ status: 'finish', paymentTime: new Date(2024, 4, 1, 14, 3, 22).toISOString(), paymentChannel: 'Alipay' })));
    await flush();
    expect(screen.getByTestId('pay-wallet').textContent).toBe('Paid with Alipay');
    await click(screen.getByTestId('lang-zh-CN'));
    expect(screen.getByTestId('pay-wallet').textContent).toBe('支付宝已付款');
  });

  it('shows "paid" with the payment time the moment the held call answers finish', async () => {
    const api = fakeApi();
    const held = deferred<PrepayDetail>();
    api.waitOrder.mockReturnValueOnce(held.promise);
    await start(api);
    await typeKeys('8');
    await click(screen.getByTestId('charge-submit'));
    expect(screen.getByTestId('order-status').textContent).toMatch(/Waiting for payment/);
    const paidAt = new Date(2024, 4, 1, 14, 3, 22).toISOString();
    await act(async () => held.resolve(detail({ status: 'finish', paymentTime: paidAt })));
    await flush();
    const status = screen.getByTestId('order-status');
    expect(status.dataset.status).toBe('finish');
    expect(status.textContent).toBe('Paid at 14:03:22');
    expect(screen.queryByTestId('pay-qr')).toBeNull();
  });

  it('shows an expired order as expired and offers a new code for the same amount', async () => {
    const api = fakeApi();
    api.waitOrder.mockResolvedValueOnce(detail({ status: 'cancel' }));
    api.createOrder.mockResolvedValueOnce({ version: 1, status: 'success', order: order({ prepayId: 'Pold', amount: '7.00' }) });
    api.createOrder.mockResolvedValueOnce({ version: 1, status: 'success', order: order({ prepayId: 'Pnew', amount: '7.00' }) });
    await start(api);
    await typeKeys('7');
    await click(screen.getByTestId('charge-submit'));
    expect(screen.getByTestId('order-status').textContent).toBe('Expired');
    expect(screen.queryByTestId('pay-qr')).toBeNull();
    await click(screen.getByTestId('new-code'));
    expect(api.createOrder).toHaveBeenLastCalledWith('7.00');
    expect(window.location.hash).toBe('#/pay/Pnew');
    expect(screen.getByTestId('order-status').dataset.status).toBe('active');
  });

  it('goes back to the login screen with a message when the login has expired', async () => {
    const api = fakeApi();
    api.waitOrder.mockRejectedValueOnce(unauthorized());
    await start(api);
    await typeKeys('9');
    await click(screen.getByTestId('charge-submit'));
    expect(screen.getByTestId('login-message').textContent).toBe('Your login has expired. Please log in again.');
  });

  it('says so when the login expired while the page was closed', async () => {
    const api = fakeApi();
    api.session.mockResolvedValue({ version: 1, status: 'success', session: null, expired: true });
    await start(api);
    expect(screen.getByTestId('login-message').textContent).toBe('Your login has expired. Please log in again.');
  });

  it('comes back to the same order after a reload', async () => {
    window.location.hash = '#/pay/Pdone';
    const api = fakeApi();
    api.getOrder.mockResolvedValue({
      version: 1,
      status: 'success',
      order: order({ prepayId: 'Pdone', status: 'finish', paymentTime: new Date(2024, 4, 1, 9, 8, 7).toISOString() }),
    });
    await start(api);
    expect(api.session).toHaveBeenCalled();
    expect(api.getOrder).toHaveBeenCalledWith('Pdone');
    expect(screen.getByTestId('order-status').textContent).toBe('Paid at 09:08:07');
    expect(api.waitOrder).not.toHaveBeenCalled();
  });

  it("lists today's orders and refunds a paid one after confirmation", async () => {
    const api = fakeApi();
    // The service's list as it stands: the paid order reads `refunded` once refunded.
    let paidStatus: 'finish' | 'refunded' = 'finish';
    api.listOrders.mockImplementation(async () => ({
      version: 1,
      status: 'success',
      orders: [
        {
          prepayId: 'Ppaid',
          amount: '8.00',
          status: paidStatus,
          createTime: '2024-05-01T10:00:00.000Z',
          paymentTime: '2024-05-01T10:00:30.000Z',
          ...(paidStatus === 'refunded' ? { refundTime: '2024-05-01T11:22:33.000Z' } : {}),
        },
        { prepayId: 'Pexp', amount: '2.00', status: 'cancel', createTime: '2024-05-01T09:00:00.000Z' },
      ],
    }));
    let channelDone: () => void = () => {};
    api.refund.mockImplementation(async () => {
      await new Promise<void>((resolve) => (channelDone = resolve));
      paidStatus = 'refunded';
      return { version: 1, status: 'success', detail: detail({ status: 'refunded' }) };
    });
    await start(api);
    await click(screen.getByTestId('tab-orders'));
    expect(window.location.hash).toBe('#/orders');
    expect(screen.getByTestId('order-status-Pexp').textContent).toBe('Expired');
    expect(screen.queryByTestId('refund-Pexp')).toBeNull();
    await click(screen.getByTestId('refund-Ppaid'));
    const dialog = screen.getByTestId('refund-dialog');
    expect(within(dialog).getByTestId('refund-amount').textContent).toBe('¥8.00');
    await click(screen.getByTestId('refund-cancel'));
    expect(api.refund).not.toHaveBeenCalled();
    await click(screen.getByTestId('refund-Ppaid'));
    await click(screen.getByTestId('refund-confirm'));
    expect(api.refund).toHaveBeenCalledWith('Ppaid');
    // While the channel works, progress stands where the button was (no faded button left behind).
    expect(screen.queryByTestId('refund-Ppaid')).toBeNull();
    expect(screen.getByTestId('refund-progress-Ppaid').getAttribute('aria-label')).toBe('Waiting for the channel…');
    expect(screen.getByTestId('order-status-Ppaid').textContent).toBe('Refunding…');
    await act(async () => {
      channelDone();
      await flush();
    });
    expect(screen.getByTestId('order-status-Ppaid').dataset.status).toBe('refunded');
    expect(screen.getByTestId('order-status-Ppaid').textContent).toBe('Refunded');
    expect(screen.queryByTestId('refund-progress-Ppaid')).toBeNull();
    // When it was refunded, not when it was paid.
    expect(screen.queryByTestId('order-paid-Ppaid')).toBeNull();
    expect(screen.getByTestId('order-refunded-Ppaid').textContent).toMatch(/^refunded at \d\d:22:33$/);
  });

  it('says in words why a parent merchant cannot log in, in the language chosen with the header switch', async () => {
    const api = fakeApi();
    api.session.mockResolvedValue({ version: 1, status: 'success', session: null });
    api.login.mockRejectedValue(
      new KitApiError(403, { status: 'fail', error: 'pos_not_sub_merchant', code: 'E0070', msg: 'Only a sub-merchant can use the POS display' }),
    );
    await start(api);
    await change('login-user', 'PMparent');
    await change('login-pw', 'pw');
    await click(screen.getByTestId('login-submit'));
    expect(screen.getByTestId('login-message').textContent).toMatch(/^This is a parent merchant id\. Only a shop/);
    await click(screen.getByTestId('lang-zh-CN'));
    expect(screen.getByTestId('login-message').textContent).toMatch(/^这是总商户号/);
    expect(screen.getByRole('heading').textContent).toBe('收银员登录');
    expect(document.documentElement.lang).toBe('zh-CN');
  });

  it('follows the browser language, lets ?lang= override it, and remembers the header switch', async () => {
    const language = jest.spyOn(window.navigator, 'language', 'get').mockReturnValue('zh-TW');
    try {
      await start(fakeApi());
      expect(screen.getByTestId('tab-orders').textContent).toBe('今日订单');
      expect(screen.getByTestId('charge-submit').textContent).toBe('生成收款码');
      mounted!.unmount();

      window.history.replaceState(null, '', '/pos/?lang=en');
      await start(fakeApi());
      expect(screen.getByTestId('tab-orders').textContent).toBe('Today’s orders');
      // The switch wins from now on: remembered, and the URL no longer says otherwise.
      await click(screen.getByTestId('lang-zh-CN'));
      expect(screen.getByTestId('tab-orders').textContent).toBe('今日订单');
      expect(window.location.search).toBe('');
      expect(screen.getByTestId('lang-zh-CN').getAttribute('aria-pressed')).toBe('true');
      mounted!.unmount();

      language.mockReturnValue('en-US');
      await start(fakeApi());
      expect(screen.getByTestId('tab-orders').textContent).toBe('今日订单');
      await click(screen.getByTestId('lang-en'));
      expect(screen.getByTestId('tab-orders').textContent).toBe('Today’s orders');
    } finally {
      language.mockRestore();
      window.localStorage.clear();
      window.history.replaceState(null, '', '/');
    }
  });

  it('shows the points balance and a code that is replaced every 5 s with a countdown, and stops when left', async () => {
    jest.useFakeTimers({ now: new Date('2024-05-01T10:00:00Z'), doNotFake: ['queueMicrotask'] });
    const api = fakeApi();
    let n = 0;
    api.pointsCode.mockImplementation(async () => ({
      version: 1,
      status: 'success',
      code: { chainLink: `KP1.code-${++n}`, spent: false, balance: '100.00000', validForMs: 20_000, refreshEveryMs: 5_000 },
    }));
    await start(api);
    await click(screen.getByTestId('tab-points'));
    await change('points-user', 'alice');
    await change('points-token', 'PTS');
    await change('points-max', '5');
    await click(screen.getByTestId('points-start'));
    expect(screen.getByTestId('points-balance').textContent).toBe('100\u00a0points');
    const countdown = () => screen.getByTestId('points-countdown');
    // It counts down what the screen says happens every 5 s: the next code.
    expect(countdown().textContent).toBe('New code in 5 s');
    const first = (screen.getByTestId('points-qr') as HTMLImageElement).src;
    await act(async () => {
      await jest.advanceTimersByTimeAsync(3_000);
    });
    expect(countdown().textContent).toBe('New code in 2 s');
    await act(async () => {
      await jest.advanceTimersByTimeAsync(2_000);
    });
    await flush();
    expect(countdown().textContent).toBe('New code in 5 s');
    expect(countdown().dataset.serial).toBe('2');
    expect((screen.getByTestId('points-qr') as HTMLImageElement).src).not.toBe(first);
    await click(screen.getByTestId('tab-charge'));
    const calls = api.pointsCode.mock.calls.length;
    await act(async () => {
      await jest.advanceTimersByTimeAsync(20_000);
    });
    expect(api.pointsCode.mock.calls.length).toBe(calls);
  });
});
