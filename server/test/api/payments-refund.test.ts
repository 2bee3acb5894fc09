/** 4.6 refund through real HTTP against the sandbox: login rules, state rules, exactly one refund under concurrency. */
import { BOTH_PROTOCOLS, describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit, sandboxTables } from '../support/kit';
import { newOrder, payApi, payByCode, payFixture, type PayFixture, sandboxPrepayId } from '../support/payments';
import { waitFor } from '../support/wait';

describeEachBackend(
  'refund',
  (backend) => {
    let kit: TestKit;
    let f: PayFixture;
    let subToken: string;
    let parentToken: string;

    beforeAll(async () => {
      kit = await startTestKit(backend, { SANDBOX_REFUND_DELAY: '150ms' });
      f = await payFixture(kit);
      subToken = (await f.client.login(f.subId, f.pw)).loginToken;
      parentToken = (await f.client.login(f.parentId, f.pw)).loginToken;
    });
    afterAll(() => kit.close());

    const paidOrder = async (g = f) => {
      const prepayId = await newOrder(g, '7.77');
      await payByCode(kit, g, prepayId);
      expect((await g.client.waitForPayment(prepayId)).status).toBe('finish');
      return prepayId;
    };

    test('a paid order is refunded: success at once, `refunded` when the channel completes it', async () => {
      const prepayId = await paidOrder();
      expect(await f.client.refund(prepayId, subToken)).toEqual({ version: 1, status: 'success' });
      // Completion is asynchronous: a held detail call sees the change.
      const detail = await waitFor(async () => {
        const d = await f.client.prepayDetail(prepayId, { wait: true });
        return d.status === 'refunded' ? d : undefined;
      }, 'refunded');
      expect(detail.paymentTime).toBeDefined();
      const state = await kit.runtime.services.payments.state(prepayId);
      expect(state.refund).toMatchObject({ state: 'success', refund_cents: 777 });
      const again = await payApi.refund(f.client, prepayId, subToken);
      expect(again.httpStatus).toBe(409);
      expect(again.body).toMatchObject({ status: 'fail', error: 'order_already_refunded' });
    });

    test('the parent merchant’s login may refund too', async () => {
      const prepayId = await paidOrder();
      expect((await f.client.refund(prepayId, parentToken)).status).toBe('success');
    });

    test('a bad login is a 401; another merchant’s login or app does not see the order', async () => {
      const prepayId = await paidOrder();
      const bad = await payApi.refund(f.client, prepayId, 'not-a-token');
      expect(bad.httpStatus).toBe(401);
      expect(bad.body.error).toBe('login_invalid');
      // No login at all is an invalid login too: 401 (specification 5.4, 7).
      const missing = await f.client.call<any>('POST', '/submerchant-pay/refund', { body: { id: prepayId } });
      expect(missing).toMatchObject({ httpStatus: 401, body: { version: 1, status: 'fail', error: 'login_invalid' } });
      const empty = await payApi.refund(f.client, prepayId, '');
      expect(empty).toMatchObject({ httpStatus: 401, body: { error: 'login_invalid' } });
      const g = await payFixture(kit);
      const otherToken = (await g.client.login(g.subId, g.pw)).loginToken;
      expect((await payApi.refund(g.client, prepayId, otherToken)).httpStatus).toBe(404);
      expect((await payApi.refund(g.client, prepayId, subToken)).httpStatus).toBe(404);
      const unsigned = await f.client.call<any>('POST', '/submerchant-pay/refund', { query: { loginToken: subToken }, body: { id: prepayId }, unsigned: true });
      expect(unsigned.httpStatus).toBe(401);
      expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
      expect((await kit.runtime.services.payments.state(prepayId)).refund).toBeNull();
    });

    test('an unpaid order cannot be refunded', async () => {
      const prepayId = await newOrder(f);
      const answer = await payApi.refund(f.client, prepayId, subToken);
      expect(answer.httpStatus).toBe(409);
      expect(answer.body).toMatchObject({ status: 'fail', error: 'order_not_paid' });
    });

    test('20 concurrent refunds of one order: exactly one succeeds and one refund reaches the channel', async () => {
      const prepayId = await paidOrder();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          f.client.call<any>('POST', '/submerchant-pay/refund', { query: { loginToken: n % 2 ? subToken : parentToken, n }, body: { id: prepayId } }),
        ),
      );
      const ok = answers.filter((a) => a.httpStatus === 200 && a.body.status === 'success');
      expect(ok).toHaveLength(1);
      for (const a of answers.filter((x) => x !== ok[0])) {
        expect(a.httpStatus).toBe(409);
        expect(['refund_in_progress', 'order_already_refunded']).toContain(a.body.error);
      }
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
      const channelRefunds = await sandboxTables(kit)
        .selectFrom('sandbox_refunds')
        .selectAll()
        .where('prepay_id', '=', await sandboxPrepayId(kit, co))
        .execute();
      expect(channelRefunds).toHaveLength(1);
      await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'refunded', 'refunded');
      const callbacks = await kit.runtime.services.callbacks.history(prepayId);
      expect(callbacks.map((c) => c.status)).toEqual(['finish', 'refunded']);
    });
  },
  { protocols: BOTH_PROTOCOLS },
);
