/**
 * The POS router over real HTTP: cookie login, orders through the signed public API, today's list,
 * refusals, and the static page. Payment, refund and points flows with the sandbox and the chain
 * are covered in test/browser/pos*.test.ts and at the end of this file.
 */
import { createMerchants, heldCalls, startTestKit, type TestKit } from '../support/kit';
import fs from 'node:fs';
import { ERROR_CATALOGUE } from '@kit/shared';
import os from 'node:os';
import path from 'node:path';
import { backends, describeEachBackend } from '../support/backends';
import { payFixture, sandboxPost, type PayFixture } from '../support/payments';
import { i2c, settle, upload } from './chain-helpers';
import { waitFor } from '../support/wait';

interface Answer {
  status: number;
  body: any;
  setCookie: string[];
  headers: Headers;
}

/** A tiny browser: keeps the POS cookie, sends JSON. */
class Counter {
  cookie = '';
  constructor(private readonly base: string) {}
  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${this.base}/pos/api${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(this.cookie ? { cookie: this.cookie } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    const setCookie = res.headers.getSetCookie();
    for (const c of setCookie) {
      const [pair] = c.split(';');
      const value = pair.slice(pair.indexOf('=') + 1);
      this.cookie = value ? pair : '';
    }
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, setCookie, headers: res.headers };
  }
}

describeEachBackend('POS router', (backend) => {
  let kit: TestKit;
  let subId: string;
  let otherSubId: string;
  let parentId: string;
  let pw: string;

  beforeAll(async () => {
    kit = await startTestKit(backend, { POS_MP_LINK_PREFIX: 'https://m.example/mp/#/pages/pay/index?scene=' });
    const app = await kit.newApp();
    ({ subId, parentId, pw } = await createMerchants(app.client, app.appId));
    const other = await app.client.createMerchant({
      type: 'subMerchant',
      parameters: { displayName: 'Other Shop', pw, appId: app.appId, parentMerchantId: parentId },
    });
    otherSubId = other.data.id;
  });
  afterAll(() => kit.close());

  async function loggedIn(id = subId): Promise<Counter> {
    const c = new Counter(kit.url);
    const a = await c.call('POST', '/login', { userId: id, pw });
    expect(a.status).toBe(200);
    return c;
  }

  it('logs a sub-merchant in with an httpOnly, SameSite=Strict cookie and never shows the token', async () => {
    const c = new Counter(kit.url);
    const a = await c.call('POST', '/login', { userId: subId, pw });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ status: 'success', session: { merchantId: subId, displayName: 'Corner Shop', parentMerchantId: parentId } });
    expect(JSON.stringify(a.body)).not.toMatch(/loginToken/);
    expect(a.setCookie).toHaveLength(1);
    expect(a.setCookie[0]).toMatch(/^pos_login=[^;]+;/);
    expect(a.setCookie[0]).toMatch(/; HttpOnly/i);
    expect(a.setCookie[0]).toMatch(/; SameSite=Strict/i);
    expect(a.setCookie[0]).toMatch(/; Path=\/pos(;|$)/);
    // Plain HTTP on loopback: no Secure flag (it would never be sent back).
    expect(a.setCookie[0]).not.toMatch(/; Secure/i);
    const s = await c.call('GET', '/session');
    expect(s.status).toBe(200);
    expect(s.body.session.merchantId).toBe(subId);
    expect(s.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses wrong passwords, parent merchants and malformed bodies without setting a cookie', async () => {
    const c = new Counter(kit.url);
    const wrong = await c.call('POST', '/login', { userId: subId, pw: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ status: 'fail', error: 'login_failed' });
    expect(wrong.setCookie).toHaveLength(0);
    // A parent merchant and an id of no merchant's shape get error ids the display can put in words.
    const parent = await c.call('POST', '/login', { userId: parentId, pw });
    expect(parent.status).toBe(403);
    expect(parent.body).toMatchObject({ status: 'fail', error: 'pos_not_sub_merchant' });
    expect(parent.body.msg).toMatch(/sub-merchant/);
    expect(parent.setCookie).toHaveLength(0);
    const odd = await c.call('POST', '/login', { userId: 'shop 1', pw });
    expect(odd.status).toBe(401);
    expect(odd.body).toMatchObject({ status: 'fail', error: 'login_failed' });
    const bad = await c.call('POST', '/login', { userId: subId });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_request');
    expect((await c.call('GET', '/session')).body).toEqual({ version: 1, status: 'success', session: null });
  });

  it('answers 401 and clears a cookie whose login is not valid', async () => {
    const c = new Counter(kit.url);
    c.cookie = 'pos_login=not-a-token';
    const a = await c.call('GET', '/orders');
    expect(a.status).toBe(401);
    expect(a.body).toMatchObject({ status: 'fail', error: 'login_invalid' });
    expect(a.setCookie[0]).toMatch(/^pos_login=;/);
    c.cookie = 'pos_login=not-a-token';
    // The session question is answered, not refused: nobody is logged in and the cookie is gone.
    const s = await c.call('GET', '/session');
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ session: null, expired: true });
    expect(s.setCookie[0]).toMatch(/^pos_login=;/);
    c.cookie = 'pos_login=not-a-token';
    expect((await c.call('POST', '/orders', { amount: '1.00' })).status).toBe(401);
    expect((await new Counter(kit.url).call('GET', '/orders')).status).toBe(401);
  });

  it('creates an order with the mini-program link of its scene', async () => {
    const c = await loggedIn();
    const a = await c.call('POST', '/orders', { amount: '12.30' });
    expect(a.status).toBe(200);
    const order = a.body.order;
    expect(order).toMatchObject({ amount: '12.30', merchantName: 'Corner Shop', status: 'active' });
    expect(order.scene).toBe(`sm.pay?prepayid=${order.prepayId}`);
    expect(order.miniProgramLink).toBe(`https://m.example/mp/#/pages/pay/index?scene=${encodeURIComponent(order.scene)}`);
    // Development help: POS_MP_LINK_PREFIX points elsewhere, so a phone can open the link.
    expect(order.development).toMatchObject({ loopbackLink: false, lanDisplayUrls: expect.any(Array) });
    // The scan-code content comes from 4.3; when the channel cannot give one, the display is told why.
    // The error id lets the display say it in the cashier's language.
    if (order.codeUrl === null) {
      expect(typeof order.codeUrlError).toBe('string');
      expect(Object.keys(ERROR_CATALOGUE)).toContain(order.codeUrlErrorId);
    } else expect(typeof order.codeUrl).toBe('string');
    const again = await c.call('GET', `/orders/${order.prepayId}`);
    expect(again.status).toBe(200);
    expect(again.body.order).toMatchObject({ prepayId: order.prepayId, amount: '12.30', status: 'active', miniProgramLink: order.miniProgramLink });
  });

  it('refuses bad amounts with the service rule and creates nothing', async () => {
    const c = await loggedIn(otherSubId);
    for (const amount of ['1.234', '0', '-1', '1e3', '', '1000000.01', '01.5']) {
      const a = await c.call('POST', '/orders', { amount });
      expect(a.status).toBe(400);
      expect(a.body.status).toBe('fail');
    }
    expect((await c.call('POST', '/orders', { amount: 5 })).status).toBe(400);
    const list = await c.call('GET', '/orders');
    expect(list.status).toBe(200);
    expect(list.body.orders).toEqual([]);
  });

  it("lists today's orders of this sub-merchant only, and hides other sub-merchants' orders", async () => {
    const mine = await loggedIn();
    const theirs = await loggedIn(otherSubId);
    const o1 = (await mine.call('POST', '/orders', { amount: '1.00' })).body.order;
    const o2 = (await theirs.call('POST', '/orders', { amount: '2.00' })).body.order;
    const list = await mine.call('GET', '/orders');
    const ids = list.body.orders.map((o: { prepayId: string }) => o.prepayId);
    expect(ids).toContain(o1.prepayId);
    expect(ids).not.toContain(o2.prepayId);
    expect(list.body.orders.find((o: { prepayId: string }) => o.prepayId === o1.prepayId)).toMatchObject({ amount: '1.00', status: 'active' });
    expect((await mine.call('GET', `/orders/${o2.prepayId}`)).status).toBe(404);
    expect((await mine.call('GET', `/orders/${o2.prepayId}/wait`)).status).toBe(404);
    expect((await mine.call('POST', `/orders/${o2.prepayId}/refund`)).status).toBe(404);
    expect((await mine.call('GET', '/orders/not-an-id!')).status).toBe(400);
    expect((await mine.call('GET', '/orders?since=abc')).status).toBe(400);
  });

  it('passes the held 4.2 answer through: still active when the hold ends, and not before', async () => {
    const c = await loggedIn();
    const order = (await c.call('POST', '/orders', { amount: '3.00' })).body.order;
    const hold = kit.runtime.config.WAIT_FOR_FINISH_HOLD;
    // The clock stands still: only moving it ends the hold.
    kit.clock.freeze();
    try {
      let answered = false;
      const held = c.call('GET', `/orders/${order.prepayId}/wait`).finally(() => (answered = true));
      await heldCalls(kit, 1);
      await kit.advance(hold - 1);
      expect(answered).toBe(false);
      await kit.advance(1);
      const a = await held;
      expect(a.status).toBe(200);
      expect(a.body).toMatchObject({ version: 1, status: 'active', totalAmount: '3.00', merchantDisplayName: 'Corner Shop' });
    } finally {
      kit.clock.resume();
    }
  });

  it('refuses to refund an order that is not paid and leaves it as it was', async () => {
    const c = await loggedIn();
    const order = (await c.call('POST', '/orders', { amount: '4.00' })).body.order;
    const a = await c.call('POST', `/orders/${order.prepayId}/refund`);
    expect(a.status).toBeGreaterThanOrEqual(400);
    expect(a.status).toBeLessThan(500);
    expect(a.status).not.toBe(401);
    expect((await c.call('GET', `/orders/${order.prepayId}`)).body.order.status).toBe('active');
  });

  it('refuses a forged points session handle', async () => {
    const c = await loggedIn();
    const a = await c.call('POST', '/points/code', { handle: 'eyJ4IjoxfQ.AAAA' });
    expect(a.status).toBe(400);
    expect(a.body.error).toBe('pos_points_session_invalid');
    expect((await c.call('POST', '/points/sessions', { userId: 'u', tokenId: 'T', maxAmount: '1.234567' })).status).toBe(400);
  });

  it('logs out by clearing the cookie and revoking its login token', async () => {
    const c = await loggedIn();
    const copied = c.cookie;
    const a = await c.call('POST', '/logout');
    expect(a.status).toBe(200);
    expect(a.setCookie[0]).toMatch(/^pos_login=;/);
    expect((await c.call('GET', '/session')).body.session).toBeNull();
    expect((await c.call('GET', '/orders')).status).toBe(401);
    // A copy of the cookie taken before the logout is dead too.
    const thief = new Counter(kit.url);
    thief.cookie = copied;
    expect((await thief.call('GET', '/session')).body).toMatchObject({ session: null, expired: true });
    expect((await thief.call('GET', '/orders')).status).toBe(401);
    // Logging out again, or without a cookie, is harmless.
    expect((await thief.call('POST', '/logout')).status).toBe(200);
    expect((await new Counter(kit.url).call('POST', '/logout')).status).toBe(200);
  });

  it('a logout ends only its own login: another display of the same shop stays logged in', async () => {
    const first = await loggedIn();
    const second = await loggedIn();
    expect((await first.call('POST', '/logout')).status).toBe(200);
    expect((await second.call('GET', '/session')).body.session).toMatchObject({ merchantId: subId });
  });
});

describeEachBackend('POS router with short-lived orders', (backend) => {
  let kit: TestKit;
  let subId: string;
  let pw: string;
  beforeAll(async () => {
    kit = await startTestKit(backend, { ORDER_TTL: '1s', WAIT_FOR_FINISH_HOLD: '5s' });
    const app = await kit.newApp();
    ({ subId, pw } = await createMerchants(app.client, app.appId));
  });
  afterAll(() => kit.close());

  it('ends the wait with `cancel` when the order expires, and lists it as such', async () => {
    const c = new Counter(kit.url);
    expect((await c.call('POST', '/login', { userId: subId, pw })).status).toBe(200);
    const order = (await c.call('POST', '/orders', { amount: '9.99' })).body.order;
    // The default link points at this service's own mini-program H5 page.
    expect(order.miniProgramLink).toBe(`${kit.url}/mp/#/pages/pay/index?scene=${encodeURIComponent(`sm.pay?prepayid=${order.prepayId}`)}`);
    // The display was reached at 127.0.0.1: a phone cannot open the link. The service listens on 127.0.0.1
    // only (HOST), so no network address is named: the display would not answer there.
    expect(order.development.loopbackLink).toBe(true);
    expect(order.development.lanDisplayUrls).toEqual([]);
    // The order's life (ORDER_TTL) runs out by moving the clock, which otherwise stands still; the hold is longer.
    kit.clock.freeze();
    try {
      const held = c.call('GET', `/orders/${order.prepayId}/wait`);
      await heldCalls(kit, 1);
      await kit.advance(kit.runtime.config.ORDER_TTL);
      expect((await held).body.status).toBe('cancel');
    } finally {
      kit.clock.resume();
    }
    const list = await c.call('GET', '/orders');
    expect(list.body.orders[0]).toMatchObject({ prepayId: order.prepayId, status: 'cancel' });
  });
});

describe('POS static page', () => {
  let kit: TestKit;
  let dist: string;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'pos-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><script type="module" src="/pos/assets/index-abc.js"></script>');
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
    kit = await startTestKit(backends()[0], { POS_DIST_DIR: dist });
  });
  afterAll(async () => {
    await kit.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('redirects /pos to /pos/ and serves the page and its assets without a signature or login', async () => {
    const r = await fetch(`${kit.url}/pos?x=1`, { redirect: 'manual' });
    expect(r.status).toBe(301);
    expect(r.headers.get('location')).toBe('/pos/?x=1');
    const page = await fetch(`${kit.url}/pos/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(await page.text()).toContain('/pos/assets/index-abc.js');
    const js = await fetch(`${kit.url}/pos/assets/index-abc.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('cache-control')).toMatch(/immutable/);
    expect((await fetch(`${kit.url}/pos/assets/missing.js`)).status).toBe(404);
    const missing = await fetch(`${kit.url}/pos/api/nothing`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toBe('route_not_found');
  });

  it('says how to build the display when it is not built', async () => {
    fs.rmSync(path.join(dist, 'index.html'));
    const page = await fetch(`${kit.url}/pos/`);
    expect(page.status).toBe(503);
    expect(await page.text()).toMatch(/npm run build/);
  });
});

describeEachBackend('POS router with the payment sandbox', (backend) => {
  let kit: TestKit;
  let f: PayFixture;
  beforeAll(async () => {
    kit = await startTestKit(backend, { SANDBOX_REFUND_DELAY: '300ms', WAIT_FOR_FINISH_HOLD: '20s' });
    f = await payFixture(kit);
  });
  afterAll(() => kit.close());

  it('gives the scan-code QR content, answers the held wait with `finish`, and refunds with the cashier login', async () => {
    const c = new Counter(kit.url);
    expect((await c.call('POST', '/login', { userId: f.subId, pw: f.pw })).status).toBe(200);
    const order = (await c.call('POST', '/orders', { amount: '6.60' })).body.order;
    expect(order.codeUrl).toMatch(/^weixin:\/\/wxpay\/bizpayurl\?pr=/);
    expect(order.payerLink).toBe(`${kit.url}/p/${order.prepayId}`);
    expect(order.paymentChannel).toBeUndefined();
    // A reload asks again and gets the same channel order's code.
    expect((await c.call('GET', `/orders/${order.prepayId}`)).body.order.codeUrl).toBe(order.codeUrl);

    // The clock stands still while the wait is held: the hold cannot end, so only the payment answers it.
    kit.clock.freeze();
    let answer: Answer;
    try {
      const held = c.call('GET', `/orders/${order.prepayId}/wait`);
      await heldCalls(kit, 1);
      expect(await sandboxPost(kit.url, '/pay', { codeUrl: order.codeUrl })).toMatchObject({ status: 200 });
      answer = await held;
    } finally {
      kit.clock.resume();
    }
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'finish', totalAmount: '6.60', paymentChannel: 'SocialNative' });
    expect(typeof answer.body.paymentTime).toBe('string');

    const listed = (await c.call('GET', '/orders')).body.orders.find((o: { prepayId: string }) => o.prepayId === order.prepayId);
    expect(listed).toMatchObject({ status: 'finish', paymentTime: answer.body.paymentTime, paymentChannel: 'SocialNative' });
    expect(listed.profitSharing).toBeUndefined(); // placed without profit sharing

    const refund = await c.call('POST', `/orders/${order.prepayId}/refund`);
    expect(refund.status).toBe(200);
    expect(['finish', 'refunded']).toContain(refund.body.detail.status);
    // The sandbox completes the refund after SANDBOX_REFUND_DELAY.
    await kit.advance(kit.runtime.config.SANDBOX_REFUND_DELAY);
    const refunded = await waitFor(async () => {
      const o = (await c.call('GET', `/orders/${order.prepayId}`)).body.order;
      return o.status === 'refunded' ? o : null;
    }, 'the refund to complete');
    expect(refunded.codeUrl).toBeNull();
    // Both the order and its line say when it was refunded, after it was paid.
    expect(Date.parse(refunded.refundTime)).toBeGreaterThanOrEqual(Date.parse(answer.body.paymentTime));
    const line = (await c.call('GET', '/orders')).body.orders.find((o: { prepayId: string }) => o.prepayId === order.prepayId);
    expect(line).toMatchObject({ status: 'refunded', paymentTime: answer.body.paymentTime, refundTime: refunded.refundTime });
    const twice = await c.call('POST', `/orders/${order.prepayId}/refund`);
    expect(twice.status).toBeGreaterThanOrEqual(400);
    expect(twice.status).toBeLessThan(500);
    expect(twice.status).not.toBe(401);
  });

  it('names the wallet that paid: an order paid with Alipay says so in its wait, its view, its line and its refund', async () => {
    await f.client.setPaymentParams(f.parentId, 'Alipay', { appAuthToken: 'appAuthToken_pos_0001' });
    const c = new Counter(kit.url);
    expect((await c.call('POST', '/login', { userId: f.subId, pw: f.pw })).status).toBe(200);
    const order = (await c.call('POST', '/orders', { amount: '3.30' })).body.order;
    expect(order.payerLink).toBe(`${kit.url}/p/${order.prepayId}`);
    // As above: the clock stands still, so only the payment answers the held wait.
    kit.clock.freeze();
    try {
      const held = c.call('GET', `/orders/${order.prepayId}/wait`);
      await heldCalls(kit, 1);
      const native = await f.client.alipayNative(order.prepayId);
      expect(await sandboxPost(kit.url, '/alipay/pay', { qrCode: native.args.qr_code })).toMatchObject({ status: 200 });
      expect((await held).body).toMatchObject({ status: 'finish', paymentChannel: 'Alipay' });
    } finally {
      kit.clock.resume();
    }
    expect((await c.call('GET', `/orders/${order.prepayId}`)).body.order).toMatchObject({ status: 'finish', paymentChannel: 'Alipay' });
    const line = (await c.call('GET', '/orders')).body.orders.find((o: { prepayId: string }) => o.prepayId === order.prepayId);
    expect(line).toMatchObject({ status: 'finish', paymentChannel: 'Alipay' });
    const refund = await c.call('POST', `/orders/${order.prepayId}/refund`);
    expect(refund.body.detail.paymentChannel).toBe('Alipay');
  });
});

describeEachBackend('POS router: orders placed with profit sharing', (backend) => {
  let kit: TestKit;
  let f: PayFixture;
  const PARTNER = { type: 'MERCHANT_ID', account: '1900000501', name: 'Partner Trading Co', relationType: 'PARTNER' } as const;
  beforeAll(async () => {
    kit = await startTestKit(backend, {
      SANDBOX_PROFIT_SHARING_DELAY: '300ms',
      PROFIT_SHARING_QUERY_SCHEDULE: '200ms,300ms,500ms',
      SANDBOX_REFUND_DELAY: '200ms',
    });
    f = await payFixture(kit);
    await kit.runtime.services.merchants.setContracted(f.parentId, true);
    await f.client.setPaymentParams(f.parentId, 'SocialNative', { profitSharing: true });
    await f.client.addProfitSharingReceiver({ merchantId: f.parentId, ...PARTNER });
  });
  afterAll(() => kit.close());

  it('lists what each paid order shared and where its sharing stands, read-only', async () => {
    const c = new Counter(kit.url);
    expect((await c.call('POST', '/login', { userId: f.subId, pw: f.pw })).status).toBe(200);
    const paidOrder = async (amount: string) => {
      const order = (await c.call('POST', '/orders', { amount })).body.order;
      expect((await sandboxPost(kit.url, '/pay', { codeUrl: order.codeUrl })).status).toBe(200);
      await waitFor(async () => (await f.client.prepayDetail(order.prepayId)).status === 'finish', 'the payment');
      return order.prepayId as string;
    };
    const listed = async (id: string) => (await c.call('GET', '/orders')).body.orders.find((o: { prepayId: string }) => o.prepayId === id);
    const untouched = await paidOrder('10.00');
    const shared = await paidOrder('100.00');
    const unpaid = (await c.call('POST', '/orders', { amount: '5.00' })).body.order.prepayId;

    expect((await listed(untouched)).profitSharing).toEqual({ state: 'open', sharedAmount: '0.00', maxShareAmount: '3.00' });
    expect((await listed(unpaid)).profitSharing).toBeUndefined();

    const body = {
      prepayId: shared,
      outOrderNo: 'POS1',
      receivers: [{ type: PARTNER.type, account: PARTNER.account, amount: '12.50', description: 'partner share' }],
    };
    // The split is on its way until the sandbox's results arrive (SANDBOX_PROFIT_SHARING_DELAY): the clock
    // stands still until the test moves it past that, so they cannot have come before the split is listed.
    kit.clock.freeze();
    try {
      await f.client.shareProfit(body);
      expect((await listed(shared)).profitSharing).toEqual({ state: 'processing', sharedAmount: '12.50', maxShareAmount: '30.00' });
      await kit.advance(kit.runtime.config.SANDBOX_PROFIT_SHARING_DELAY);
    } finally {
      kit.clock.resume();
    }
    await f.client.waitForProfitSharing(shared, body.outOrderNo, { intervalMs: 100, timeoutMs: 10_000 });
    expect((await listed(shared)).profitSharing).toEqual({ state: 'open', sharedAmount: '12.50', maxShareAmount: '30.00' });
    await f.client.finishProfitSharing({ prepayId: shared, outOrderNo: 'POS2', description: 'done' });
    await kit.advance(kit.runtime.config.SANDBOX_PROFIT_SHARING_DELAY);
    await waitFor(async () => (await listed(shared)).profitSharing.state === 'finished', 'the finish');
    expect((await listed(shared)).profitSharing).toEqual({ state: 'finished', sharedAmount: '12.50', maxShareAmount: '30.00' });

    // Refunded, an order that shared nothing can share no more and loses its line; one that shared keeps it.
    for (const id of [untouched, shared]) expect((await c.call('POST', `/orders/${id}/refund`)).status).toBe(200);
    await kit.advance(kit.runtime.config.SANDBOX_REFUND_DELAY);
    await waitFor(async () => (await listed(untouched)).status === 'refunded' && (await listed(shared)).status === 'refunded', 'the refunds');
    expect((await listed(untouched)).profitSharing).toBeUndefined();
    expect((await listed(shared)).profitSharing).toEqual({ state: 'finished', sharedAmount: '12.50', maxShareAmount: '30.00' });
  });
});

describeEachBackend('POS router with trusted points', (backend) => {
  let kit: TestKit;
  let f: PayFixture;
  beforeAll(async () => {
    kit = await startTestKit(backend, {});
    f = await payFixture(kit);
    // The shop's app issues a point type and gives alice 100 points.
    const items = [
      { type: 'points.create', args: { id: 'pts-type', tokenId: 'PTS', name: 'Shop points' } },
      { type: 'points.issue', args: { id: 'pts-alice', tokenId: 'PTS', userAppId: f.appId, userId: 'alice', amount: '100' } },
    ];
    expect((await upload(f.client, items.slice(0, 1))).body.status).toBe('pending');
    await settle(f.client, [i2c('points.create', 'pts-type')]);
    expect((await upload(f.client, items.slice(1))).body.status).toBe('pending');
    const [issued] = await settle(f.client, [i2c('points.issue', 'pts-alice')]);
    expect(issued.id).not.toBe('');
  });
  afterAll(() => kit.close());

  it('reads the balance of a user of the shop app, and keeps one uuid per points session', async () => {
    const c = new Counter(kit.url);
    expect((await c.call('POST', '/login', { userId: f.subId, pw: f.pw })).status).toBe(200);
    const bal = await c.call('GET', '/points/balance?tokenId=PTS&userId=alice');
    expect(bal.status).toBe(200);
    expect(bal.body).toMatchObject({ balance: '100.00000', tokenId: 'PTS', tokenAppId: f.appId, userAppId: f.appId, userId: 'alice' });

    const started = await c.call('POST', '/points/sessions', { userId: 'alice', tokenId: 'PTS', maxAmount: '30' });
    expect(started.status).toBe(200);
    const session = started.body.session;
    expect(session.uuid).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(started.body.balance).toBe('100.00000');
    expect(JSON.stringify(started.body)).not.toContain(f.appSecret);

    const first = await c.call('POST', '/points/code', { handle: session.handle });
    expect(first.status).toBe(200);
    expect(first.body.code).toMatchObject({ spent: false, balance: '100.00000', validForMs: 20_000, refreshEveryMs: 5_000 });
    // A code is minted at the service's time: the next one, a moment later, differs.
    await kit.advance(5);
    const second = await c.call('POST', '/points/code', { handle: session.handle });
    expect(second.body.code.chainLink).not.toBe(first.body.code.chainLink);

    // The older code redeems; the newer one then fails: both carry the same, now spent, uuid.
    await upload(f.client, [{ type: 'chainPay', args: { id: 'pay-1', code: first.body.code.chainLink, amount: '12.5' } }]);
    const [paid] = await settle(f.client, [i2c('chainPay', 'pay-1')]);
    expect(paid.id).not.toBe('');
    await upload(f.client, [{ type: 'chainPay', args: { id: 'pay-2', code: second.body.code.chainLink, amount: '1' } }]);
    const [refused] = await settle(f.client, [i2c('chainPay', 'pay-2')]);
    expect(refused).toEqual({});
    // A spent session gives no more codes; the display then shows the new balance.
    const after = await c.call('POST', '/points/code', { handle: session.handle });
    expect(after.status).toBe(200);
    expect(after.body.code).toMatchObject({ spent: true, chainLink: null, balance: '87.50000' });
    expect((await c.call('GET', '/points/balance?tokenId=PTS&userId=alice')).body.balance).toBe('87.50000');

    // Another sub-merchant cannot use this session's handle.
    const other = await f.client.createMerchant({
      type: 'subMerchant',
      parameters: { displayName: 'Kiosk', pw: f.pw, appId: f.appId, parentMerchantId: f.parentId },
    });
    const o = new Counter(kit.url);
    await o.call('POST', '/login', { userId: other.data.id, pw: f.pw });
    expect((await o.call('POST', '/points/code', { handle: session.handle })).body.error).toBe('pos_points_session_invalid');
  });

  it('passes refusals of the points service through as clear 4xx answers', async () => {
    const c = new Counter(kit.url);
    await c.call('POST', '/login', { userId: f.subId, pw: f.pw });
    const a = await c.call('GET', '/points/balance?tokenId=NOPE&userId=alice');
    expect(a.status).toBeGreaterThanOrEqual(400);
    expect(a.status).toBeLessThan(500);
    expect(a.status).not.toBe(401);
    expect(typeof a.body.msg).toBe('string');
    expect((await c.call('GET', '/points/balance?userId=alice')).status).toBe(400);
  });
});

describe('POS login behind a TLS-terminating proxy', () => {
  let kit: TestKit;
  beforeAll(async () => {
    kit = await startTestKit(backends()[0], { TRUST_PROXY: '1', ALLOW_INSECURE_LOGIN_ON_LOOPBACK: '0' });
  });
  afterAll(() => kit.close());

  it('sets a Secure cookie over HTTPS and refuses the password over plain HTTP', async () => {
    const app = await kit.newApp();
    const { subId, pw } = await createMerchants(app.client, app.appId);
    const post = (headers: Record<string, string>) =>
      fetch(`${kit.url}/pos/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ userId: subId, pw }),
      });
    const plain = await post({});
    expect(plain.status).toBe(403);
    expect((await plain.json()).error).toBe('secure_connection_required');
    expect(plain.headers.getSetCookie()).toEqual([]);
    const tls = await post({ 'x-forwarded-proto': 'https' });
    expect(tls.status).toBe(200);
    expect(tls.headers.getSetCookie()[0]).toMatch(/; Secure/i);
  });
});
