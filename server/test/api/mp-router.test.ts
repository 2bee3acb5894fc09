/**
 * The mini-program router over real HTTP against a real service and its sandbox: order reads
 * (4.2 behind it), the held read, the code → open id exchange, 4.4 behind "pay", refusals, and the
 * static H5 page.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { heldCalls, startTestKit, type TestKit } from '../support/kit';
import { describeEachBackend } from '../support/backends';
import { newOrder, payFixture, sandboxPost, type PayFixture } from '../support/payments';

interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

async function call(base: string, method: string, p: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

const loginCode = async (kit: TestKit, user = 'payer-1') => (await sandboxPost(kit.url, '/login', { user })).body.code as string;

describeEachBackend('mini-program router', (backend) => {
  let kit: TestKit;
  let f: PayFixture;
  let h5Dir: string;

  beforeAll(async () => {
    h5Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mp-h5-'));
    fs.writeFileSync(path.join(h5Dir, 'index.html'), '<!doctype html><title>Pay</title>');
    fs.mkdirSync(path.join(h5Dir, 'js'));
    fs.writeFileSync(path.join(h5Dir, 'js', 'app.1234.js'), 'console.log(1)');
    kit = await startTestKit(backend, { MP_H5_DIR: h5Dir });
    f = await payFixture(kit);
  });
  afterAll(async () => {
    await kit.close();
    fs.rmSync(h5Dir, { recursive: true, force: true });
  });

  it('reads an order as 4.2 does, without any signature from the page', async () => {
    const id = await newOrder(f, '12.30');
    const a = await call(kit.url, 'GET', `/mp/api/orders/${id}`);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ version: 1, status: 'active', merchantDisplayName: 'Corner Shop', totalAmount: '12.30', disconut: '0.00' });
    expect(a.headers.get('cache-control')).toBe('no-store');
    // The order number for the payer's receipt; no item list when extraInfo carries none.
    expect(a.body.prepayId).toBe(id);
    expect(a.body.items).toBeUndefined();
  });

  it('adds what extraInfo says was bought, in the one shape the page understands, and nothing else of it', async () => {
    const extraInfo = {
      items: [{ name: 'Latte', quantity: 2, amount: '36.00' }, { name: 'Croissant', price: '8.50' }, { sku: 'hidden' }],
      note: 'Table 4',
      secret: 'merchant-only',
    };
    const { prepayId } = await f.client.createPrepay({ subMerchantId: f.subId, totalAmount: '44.50', extraInfo });
    const a = await call(kit.url, 'GET', `/mp/api/orders/${prepayId}`);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      prepayId,
      totalAmount: '44.50',
      items: [
        { name: 'Latte', quantity: 2, amount: '36.00' },
        { name: 'Croissant', amount: '8.50' },
      ],
      note: 'Table 4',
    });
    expect(a.text).not.toContain('merchant-only');
    expect(a.body.itemsMore).toBeUndefined();
    // Free extraInfo of another shape shows nothing.
    const plain = await f.client.createPrepay({ subMerchantId: f.subId, totalAmount: '1.00', extraInfo: 'order 17' });
    expect((await call(kit.url, 'GET', `/mp/api/orders/${plain.prepayId}`)).body.items).toBeUndefined();
  });

  it('answers 404 for an order that does not exist, whatever the id length, and 400 for a malformed id', async () => {
    for (const id of ['Z', 'NoSuchOrder00000000000000000000000000', 'abcdefghijkl']) {
      const a = await call(kit.url, 'GET', `/mp/api/orders/${id}`);
      expect(a.status).toBe(404);
      expect(a.body).toMatchObject({ status: 'fail', error: 'not_found' });
    }
    const bad = await call(kit.url, 'GET', '/mp/api/orders/bad-id!');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_request');
    expect((await call(kit.url, 'GET', '/mp/api/orders/abc?wait=2')).status).toBe(400);
  });

  it('pays: exchanges the code on the server, returns 4.4 args without the open id, and a held read returns on payment', async () => {
    const id = await newOrder(f, '5.00');
    const pay = await call(kit.url, 'POST', '/mp/api/pay', { prepayId: id, code: await loginCode(kit, 'payer-args') });
    expect(pay.status).toBe(200);
    expect(pay.body.status).toBe('success');
    const args = pay.body.args;
    expect(Object.keys(args).sort()).toEqual(['nonceStr', 'package', 'paySign', 'signType', 'timeStamp']);
    expect(args.package).toMatch(/^prepay_id=.+/);
    expect(pay.text).not.toMatch(/openid|openId/i);

    // The payer pays while the page holds a read: it returns at once with `finish`. The clock stands
    // still meanwhile: the hold cannot end, so only the payment answers the read.
    kit.clock.freeze();
    let after: Answer;
    try {
      const held = call(kit.url, 'GET', `/mp/api/orders/${id}?wait=1`);
      await heldCalls(kit, 1);
      const paid = await sandboxPost(kit.url, '/pay', { prepayId: args.package.slice('prepay_id='.length) });
      expect(paid.status).toBe(200);
      after = await held;
    } finally {
      kit.clock.resume();
    }
    expect(after.body).toMatchObject({ status: 'finish', totalAmount: '5.00' });
    expect(typeof after.body.paymentTime).toBe('string');
  });

  it('refuses a login code the platform does not accept, and a code used twice, changing nothing', async () => {
    const id = await newOrder(f);
    const bogus = await call(kit.url, 'POST', '/mp/api/pay', { prepayId: id, code: 'not-a-real-code' });
    expect(bogus.status).toBe(400);
    expect(bogus.body).toMatchObject({ status: 'fail', error: 'mp_login_failed', code: 'E0080' });
    expect(bogus.text).not.toContain('sandbox-mini-program-secret');
    const code = await loginCode(kit);
    expect((await call(kit.url, 'POST', '/mp/api/pay', { prepayId: id, code })).body.status).toBe('success');
    const again = await call(kit.url, 'POST', '/mp/api/pay', { prepayId: id, code });
    expect(again.body.error).toBe('mp_login_failed');
    expect((await call(kit.url, 'GET', `/mp/api/orders/${id}`)).body.status).toBe('active');
  });

  it('passes on a non-success 4.4 answer (expired order) as an answer the page turns into "scan again"', async () => {
    const id = await newOrder(f);
    await kit.runtime.services.prepay.expire(id);
    const a = await call(kit.url, 'POST', '/mp/api/pay', { prepayId: id, code: await loginCode(kit) });
    expect(a.status).toBe(200);
    expect(a.body.status).not.toBe('success');
    expect(a.body.args).toBeUndefined();
  });

  it('validates the pay body', async () => {
    const id = await newOrder(f);
    for (const body of [{}, { prepayId: id }, { prepayId: id, code: '' }, { prepayId: id, code: 'x', openId: 'o' }, { prepayId: 'a/b', code: 'x' }]) {
      const a = await call(kit.url, 'POST', '/mp/api/pay', body);
      expect(a.status).toBe(400);
      expect(a.body.error).toBe('invalid_request');
    }
    expect((await call(kit.url, 'POST', '/mp/api/pay', { prepayId: 'NoSuch1', code: 'x' })).status).toBe(404);
  });

  it('serves the H5 build at /mp/ (index never cached, hashed assets for good) and redirects /mp', async () => {
    const redirect = await call(kit.url, 'GET', '/mp?x=1');
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/mp/?x=1');
    const page = await call(kit.url, 'GET', '/mp/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>Pay</title>');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const js = await call(kit.url, 'GET', '/mp/js/app.1234.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect((await call(kit.url, 'GET', '/mp/js/nope.js')).status).toBe(404);
  });
});

describeEachBackend('mini-program router without a reachable login service', (backend) => {
  let kit: TestKit;
  beforeAll(async () => {
    kit = await startTestKit(backend, { MP_LOGIN_URL: 'http://127.0.0.1:9/sns/jscode2session', MP_H5_DIR: path.join(os.tmpdir(), 'no-such-mp-build') });
  });
  afterAll(() => kit.close());

  it('answers 503 for "pay" and changes nothing', async () => {
    const f = await payFixture(kit);
    const id = await newOrder(f);
    const a = await call(kit.url, 'POST', '/mp/api/pay', { prepayId: id, code: 'abc' });
    expect(a.status).toBe(503);
    expect(a.body.error).toBe('mp_login_unavailable');
    expect((await call(kit.url, 'GET', `/mp/api/orders/${id}`)).body.status).toBe('active');
  });

  it('says how to build when the H5 build is missing', async () => {
    const page = await call(kit.url, 'GET', '/mp/');
    expect(page.status).toBe(503);
    expect(page.text).toContain('npm run build -w miniprogram');
  });
});
