/** 4.1 create prepay order and 4.2 detail with waitForFinish, expiry and visibility, on every backend. */
import { MAX_SCENE_LENGTH, buildScene } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';

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
    kit = await startTestKit(backend, { ORDER_TTL: '3s', WAIT_FOR_FINISH_HOLD: '1500ms' });
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
    const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '5.00' });
    const started = Date.now();
    const held = app.client.prepayDetail(prepayId, { wait: true });
    await new Promise((r) => setTimeout(r, 300));
    const { prepay } = kit.runtime.services;
    const paidAt = Date.now();
    expect(await prepay.transition(kit.runtime.db.db, prepayId, 'active', 'finish', { payment_time: paidAt })).toBe(true);
    prepay.announce(prepayId, 'finish');
    const detail = await held;
    expect(detail).toMatchObject({ status: 'finish', paymentTime: new Date(paidAt).toISOString() });
    // It answered at the change, not at the end of the 1.5 s hold.
    expect(Date.now() - started).toBeLessThan(1400);
  });

  it('answers active when the hold time passes without payment', async () => {
    const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '5.00' });
    const started = Date.now();
    expect(await app.client.prepayDetail(prepayId, { wait: true })).toMatchObject({ status: 'active' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
  });

  it('expires an order to cancel after ORDER_TTL and wakes a held call', async () => {
    const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '5.00' });
    let last = await app.client.prepayDetail(prepayId, { wait: true });
    const deadline = Date.now() + 6000;
    while (last.status === 'active' && Date.now() < deadline) last = await app.client.prepayDetail(prepayId, { wait: true });
    expect(last.status).toBe('cancel');
    expect((await kit.runtime.services.prepay.find(prepayId))?.status).toBe('cancel');
  });

  it('the client loop waits through to the payment', async () => {
    const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '7.00' });
    const seen: string[] = [];
    const waiting = app.client.waitForPayment(prepayId, { onUpdate: (d) => seen.push(d.status) });
    setTimeout(() => {
      const { prepay } = kit.runtime.services;
      void prepay.transition(kit.runtime.db.db, prepayId, 'active', 'finish', { payment_time: Date.now() }).then(() => prepay.announce(prepayId, 'finish'));
    }, 1800);
    expect(await waiting).toMatchObject({ status: 'finish' });
    expect(seen[0]).toBe('active');
  });
});

describeEachBackend('prepay expiry wakes held calls', (backend) => {
  let kit: TestKit;
  let app: Awaited<ReturnType<TestKit['newApp']>>;
  let m: Awaited<ReturnType<typeof createMerchants>>;

  // The hold (10 s) outlasts the order (1.5 s): only a wake at expiry can answer before the hold ends.
  beforeAll(async () => {
    kit = await startTestKit(backend, { ORDER_TTL: '1500ms', WAIT_FOR_FINISH_HOLD: '10s', EXPIRY_SWEEP_INTERVAL: '200ms' });
    app = await kit.newApp();
    m = await createMerchants(app.client, app.appId);
  });
  afterAll(() => kit.close());

  it('a held call answers `cancel` when the order expires, long before its hold ends', async () => {
    const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '5.00' });
    const started = Date.now();
    const detail = await app.client.prepayDetail(prepayId, { wait: true });
    expect(detail.status).toBe('cancel');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('several held calls on one order all wake at its expiry', async () => {
    const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '5.00' });
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 5 }, () => app.client.prepayDetail(prepayId, { wait: true })));
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill('cancel'));
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
