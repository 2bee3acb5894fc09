/** 4.1 create prepay order and 4.2 detail with waitForFinish, expiry and visibility, on every backend. */
import { MAX_SCENE_LENGTH, buildScene } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { createMerchants, heldCalls, startTestKit, type TestKit } from '../support/kit';
import { waitFor } from '../support/wait';

const HOLD_MS = 20_000;
const TTL_MS = 2 * 3_600_000;

describeEachBackend('prepay orders', (backend) => {
  let kit: TestKit;
  let app: Awaited<ReturnType<TestKit['newApp']>>;
  let m: Awaited<ReturnType<typeof createMerchants>>;
  const countOrders = async () =>
    Number(
      (await kit.runtime.db.db
        .selectFrom('prepay_orders')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst())!.n,
    );

  beforeAll(async () => {
    kit = await startTestKit(backend, { ORDER_TTL: '2h', WAIT_FOR_FINISH_HOLD: '20s' });
    app = await kit.newApp();
    m = await createMerchants(app.client, app.appId, { parent: 'Parent Co', sub: 'Noodle Bar' });
  });
  afterAll(() => kit.close());

  it('creates an order and reads its detail', async () => {
    const created = await app.client.call('POST', '/submerchant-pay/', {
      body: { subMerchantId: m.subId, totalAmount: '12.34', orderId: null, extraInfo: { table: 7 } },
    });
    expect(created).toMatchObject({ httpStatus: 200, body: { version: 1, status: 'success', prepayId: expect.stringMatching(/^[0-9A-Za-z]+$/) } });
    const prepayId = created.body.prepayId as string;
    const detail = await app.client.prepayDetail(prepayId);
    expect(detail).toEqual({
      version: 1,
      status: 'active',
      merchantDisplayName: 'Noodle Bar',
      totalAmount: '12.34',
      disconut: '0.00',
      createTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(detail).not.toHaveProperty('paymentTime');
    const row = await kit.runtime.services.prepay.find(prepayId);
    expect(row).toMatchObject({ total_cents: 1234, extra_info: '{"table":7}', merchant_id: m.parentId });
  });

  it('gives ids that fit sm.pay?prepayid=<id>&f=2 in 32 characters', async () => {
    for (let i = 0; i < 20; i++) {
      const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '1.00' });
      expect(buildScene(prepayId, { f: '2' }).length).toBeLessThanOrEqual(MAX_SCENE_LENGTH);
    }
  });

  it.each([
    ['"1.234"', '1.234'],
    ['"-1"', '-1'],
    ['"0"', '0'],
    ['"1e3"', '1e3'],
    ['a number', 12.34],
    ['empty', ''],
    ['missing', undefined],
    ['null', null],
    ['above the maximum', '1000000.01'],
  ])('refuses the amount %s with a clear message and stores nothing', async (_what, totalAmount) => {
    const before = await countOrders();
    const a = await app.client.call('POST', '/submerchant-pay/', { body: { subMerchantId: m.subId, totalAmount, orderId: null } });
    expect(a.httpStatus).toBe(400);
    expect(a.body).toMatchObject({ version: 1, status: 'fail', error: 'invalid_amount', msg: expect.stringContaining('totalAmount') });
    expect(await countOrders()).toBe(before);
  });

  it.each([
    ['an unknown sub-merchant', { subMerchantId: 'SMunknown1', totalAmount: '1.00' }, 400, 'unknown_merchant'],
    ['a parent merchant id', () => ({ subMerchantId: m.parentId, totalAmount: '1.00' }), 400, 'invalid_request'],
    ['orderId other than null', () => ({ subMerchantId: m.subId, totalAmount: '1.00', orderId: 'X1' }), 400, 'invalid_request'],
    ['an unknown field', () => ({ subMerchantId: m.subId, totalAmount: '1.00', tip: '1' }), 400, 'invalid_request'],
    ['too much extraInfo', () => ({ subMerchantId: m.subId, totalAmount: '1.00', extraInfo: 'x'.repeat(9000) }), 400, 'invalid_request'],
  ])('refuses %s and stores nothing', async (_what, body, status, error) => {
    const before = await countOrders();
    const a = await app.client.call('POST', '/submerchant-pay/', { body: typeof body === 'function' ? body() : body });
    expect(a).toMatchObject({ httpStatus: status, body: { status: 'fail', error } });
    expect(await countOrders()).toBe(before);
  });

  it('refuses an app that owns neither the sub-merchant nor its parent', async () => {
    const stranger = await kit.newApp();
    const a = await stranger.client.call('POST', '/submerchant-pay/', { body: { subMerchantId: m.subId, totalAmount: '1.00', orderId: null } });
    expect(a).toMatchObject({ httpStatus: 401, body: { error: 'not_owner' } });
  });

  it('refuses a disabled sub-merchant', async () => {
    const mm = await createMerchants(app.client, app.appId);
    await kit.runtime.services.merchants.setDisabled(mm.subId, true);
    const a = await app.client.call('POST', '/submerchant-pay/', { body: { subMerchantId: mm.subId, totalAmount: '1.00', orderId: null } });
    expect(a).toMatchObject({ httpStatus: 400, body: { error: 'merchant_disabled' } });
  });

  it('tells a sub-merchant whose parent is disabled that the parent is disabled, at 4.1 and at 4.3', async () => {
    const mm = await createMerchants(app.client, app.appId);
    await app.client.setPaymentParams(mm.parentId, 'SocialNative', { socialAppId: 'wxmerchantapp0001', socialMchId: '1230000109' });
    const { prepayId } = await app.client.createPrepay({ subMerchantId: mm.subId, totalAmount: '1.00' });
    await kit.runtime.services.merchants.setDisabled(mm.parentId, true);
    const says = `the parent merchant "${mm.parentId}" of sub-merchant "${mm.subId}" is disabled`;
    const created = await app.client.call('POST', '/submerchant-pay/', { body: { subMerchantId: mm.subId, totalAmount: '1.00', orderId: null } });
    expect(created).toMatchObject({ httpStatus: 400, body: { error: 'merchant_disabled', msg: expect.stringContaining(says) } });
    const args = await app.client.call('POST', '/submerchant-pay/socialPayNative', { body: { prepayId } });
    expect(args).toMatchObject({ httpStatus: 400, body: { error: 'merchant_disabled', msg: expect.stringContaining(says) } });
    const login = await app.client.call('POST', '/merchant/login', { unsigned: true, body: { userId: mm.subId, pw: mm.pw } });
    expect(login).toMatchObject({
      body: { error: 'merchant_disabled', msg: expect.stringContaining(`the parent merchant "${mm.parentId}" of this sub-merchant is disabled`) },
    });
  });

  it('answers HTTP 200 "fail" / not_found for an unknown, malformed or another app\'s order, so the 4.2 loop stops', async () => {
    const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '1.00' });
    const stranger = await kit.newApp();
    const cases = [
      [app.client, 'nope123'],
      [app.client, 'has-dash'],
      [app.client, encodeURIComponent('中文')],
      [app.client, 'x'.repeat(80)],
      [stranger.client, prepayId],
    ] as const;
    for (const [client, id] of cases) {
      for (const wait of [0, 1]) {
        const a = await client.call('GET', `/submerchant-pay/prePay/${id}`, { query: { waitForFinish: wait } });
        expect([id, a]).toMatchObject([
          id,
          { httpStatus: 200, body: { version: 1, status: 'fail', error: 'not_found', code: 'E0020', msg: expect.any(String), traceId: expect.any(String) } },
        ]);
      }
    }
    // The client's loop ends at once on it instead of spinning.
    const started = Date.now();
    await expect(app.client.waitForPayment('nope123')).rejects.toMatchObject({ httpStatus: 200, isNotFound: true });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a bad waitForFinish value', async () => {
    const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '1.00' });
    const a = await app.client.call('GET', `/submerchant-pay/prePay/${prepayId}`, { query: { waitForFinish: 'yes' } });
    expect(a).toMatchObject({ httpStatus: 400, body: { error: 'invalid_request' } });
  });

  it('holds a waitForFinish call and answers the moment the order leaves active', async () => {
    // The clock stands still: the hold cannot end, so only the change can answer the call.
    kit.clock.freeze();
    try {
      const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '5.00' });
      const held = app.client.prepayDetail(prepayId, { wait: true });
      await heldCalls(kit, 1);
      const { prepay } = kit.runtime.services;
      const paidAt = kit.clock.now();
      expect(await prepay.transition(kit.runtime.db.db, prepayId, 'active', 'finish', { payment_time: paidAt })).toBe(true);
      prepay.announce(prepayId, 'finish');
      expect(await held).toMatchObject({ status: 'finish', paymentTime: new Date(paidAt).toISOString() });
    } finally {
      kit.clock.resume();
    }
  });

  it('answers active when the hold time passes without payment, and not before', async () => {
    kit.clock.freeze();
    try {
      const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '5.00' });
      let answered = false;
      const held = app.client.prepayDetail(prepayId, { wait: true }).finally(() => (answered = true));
      await heldCalls(kit, 1);
      await kit.advance(HOLD_MS - 1);
      expect(answered).toBe(false);
      await kit.advance(1);
      expect(await held).toMatchObject({ status: 'active' });
    } finally {
      kit.clock.resume();
    }
  });

  it('expires an order to cancel after ORDER_TTL and wakes a held call', async () => {
    const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '5.00' });
    await kit.advance(TTL_MS - 60_000);
    expect((await app.client.prepayDetail(prepayId)).status).toBe('active');
    const held = app.client.prepayDetail(prepayId, { wait: true });
    await heldCalls(kit, 1);
    await kit.advance('1m');
    expect((await held).status).toBe('cancel');
    expect((await kit.runtime.services.prepay.find(prepayId))?.status).toBe('cancel');
  });

  it('the client loop waits through to the payment', async () => {
    const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '7.00' });
    const seen: string[] = [];
    const waiting = app.client.waitForPayment(prepayId, { onUpdate: (d) => seen.push(d.status) });
    // Its first call is held; once the hold runs out it asks again at once.
    await heldCalls(kit, 1);
    await kit.advance(HOLD_MS);
    await waitFor(() => seen.length >= 1 && kit.runtime.services.events.waiting >= 1, 'the loop asking again');
    const { prepay } = kit.runtime.services;
    await prepay.transition(kit.runtime.db.db, prepayId, 'active', 'finish', { payment_time: kit.clock.now() });
    prepay.announce(prepayId, 'finish');
    expect(await waiting).toMatchObject({ status: 'finish' });
    expect(seen[0]).toBe('active');
  });
});

describeEachBackend('prepay expiry wakes held calls', (backend) => {
  let kit: TestKit;
  let app: Awaited<ReturnType<TestKit['newApp']>>;
  let m: Awaited<ReturnType<typeof createMerchants>>;

  // The hold (50 s) outlasts the order (30 s): only a wake at expiry can answer before the hold ends.
  beforeAll(async () => {
    kit = await startTestKit(backend, { ORDER_TTL: '30s', WAIT_FOR_FINISH_HOLD: '50s', EXPIRY_SWEEP_INTERVAL: '1s' });
    app = await kit.newApp();
    m = await createMerchants(app.client, app.appId);
  });
  afterAll(() => kit.close());

  it('held calls on an order all answer `cancel` when it expires, long before their hold ends', async () => {
    kit.clock.freeze();
    try {
      const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '5.00' });
      const answers = Promise.all(Array.from({ length: 5 }, () => app.client.prepayDetail(prepayId, { wait: true })));
      await heldCalls(kit, 5);
      await kit.advance('31s');
      expect((await answers).map((a) => a.status)).toEqual(Array(5).fill('cancel'));
    } finally {
      kit.clock.resume();
    }
  });
});
