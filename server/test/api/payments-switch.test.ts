/**
 * 4.3, 4.4 and 4.5 called at once for one unpaid order (on two instances sharing PostgreSQL):
 * switching trade types goes one request at a time per order, a close that races another close is
 * never taken for a payment, every call is answered with arguments, and exactly one channel order
 * stays payable.
 */
import { KitClient } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit, sandboxTables } from '../support/kit';
import { newOrder, payFixture, sandboxOpenId, sandboxPost, type PayFixture } from '../support/payments';

describeEachBackend('switching trade types in parallel', (backend) => {
  jest.setTimeout(120_000);
  let a: TestKit;
  let b: TestKit;
  let f: PayFixture;
  let onB: KitClient;
  let mp: { appid: string; secret: string };

  beforeAll(async () => {
    const env = { ...backend.env(), SANDBOX_NOTIFY_SCHEDULE: '100ms,200ms,300ms' };
    a = await startTestKit(backend, env);
    // Several instances share a database on PostgreSQL only (a SQLite file has one service).
    b = backend.name === 'postgres' ? await startTestKit(backend, env) : a;
    f = await payFixture(a);
    onB = new KitClient({ baseUrl: b.url, appId: f.appId, appSecret: f.appSecret });
    mp = { appid: a.runtime.config.MP_APPID!, secret: a.runtime.config.MP_SECRET! };
  });
  afterAll(async () => {
    await a?.close();
    if (b !== a) await b?.close();
  });

  test('120 calls of 4.3/4.4/4.5 on one unpaid order: all answered with arguments, the order stays payable once', async () => {
    const prepayId = await newOrder(f, '6.60');
    const openId = await sandboxOpenId(a.url, 'parallel-payer', mp);
    const paths = ['/submerchant-pay/socialPayNative', '/submerchant-pay/socialPay', '/submerchant-pay/socialPayApp'];
    // A distinct query field per call keeps the signatures distinct (same millisecond, same body).
    const answers = await Promise.all(
      Array.from({ length: 120 }, (_, n) =>
        // One order's switches take turns: the last of 120 waits for the others, longer than a
        // client's usual 30 s on a machine running other suites beside this one.
        (n % 2 ? onB : f.client).call<any>('POST', paths[n % 3], { query: { n }, body: n % 3 === 1 ? { prepayId, openId } : { prepayId }, timeoutMs: 100_000 }),
      ),
    );
    const failures = answers.filter((x) => x.httpStatus !== 200).map((x) => `${x.httpStatus} ${x.body.error}: ${x.body.msg}`);
    expect(failures).toEqual([]);
    // Nothing is kept per order once its calls have ended (a soak would otherwise grow by one entry per order).
    expect(a.runtime.services.payments.channelOrders.inFlight).toBe(0);
    expect(b.runtime.services.payments.channelOrders.inFlight).toBe(0);
    expect((await f.client.prepayDetail(prepayId)).status).toBe('active');

    // One channel order is payable, here and at the channel; every other one was closed.
    const rows = (await a.runtime.services.payments.state(prepayId)).channelOrders;
    const payable = rows.filter((r) => r.state === 'open' || r.state === 'creating');
    expect(payable).toHaveLength(1);
    expect(rows.filter((r) => r !== payable[0]).every((r) => r.state === 'closed')).toBe(true);
    const atChannel = await sandboxTables(a)
      .selectFrom('sandbox_orders')
      .select(['prepay_id', 'state'])
      .where(
        'prepay_id',
        'in',
        rows.map((r) => r.channel_prepay_id ?? ''),
      )
      .execute();
    expect(atChannel.filter((o) => o.state === 'NOTPAY').map((o) => o.prepay_id)).toEqual([payable[0].channel_prepay_id]);

    // It can be paid, and the order ends `finish`.
    const paid = await sandboxPost(a.url, '/pay', { prepayId: payable[0].channel_prepay_id, openId });
    expect(paid.status).toBe(200);
    expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
  });

  test('switching flows after the payer paid (its notification lost): the close answered "paid" leads to the order query, which records the payment', async () => {
    const prepayId = await newOrder(f, '4.40');
    const native = await f.client.socialPayNative(prepayId);
    expect((await sandboxPost(a.url, '/faults', { payNotifications: 'drop' })).status).toBe(200);
    try {
      expect((await sandboxPost(a.url, '/pay', { codeUrl: native.args.code_url })).status).toBe(200);
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      const app = await f.client.call<any>('POST', '/submerchant-pay/socialPayApp', { body: { prepayId } });
      expect(app).toMatchObject({ httpStatus: 409, body: { status: 'fail', error: 'order_not_active', msg: expect.stringContaining('paid') } });
    } finally {
      await sandboxPost(a.url, '/faults', {});
    }
    expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
    const rows = (await a.runtime.services.payments.state(prepayId)).channelOrders;
    expect(rows.map((r) => [r.trade_type, r.state])).toEqual([['NATIVE', 'paid']]);
  });
});
