/**
 * What a payment notification costs the database (issue 34): on PostgreSQL at most 5 round trips for
 * the notification with its callback (verification, settlement, state change, callback job, order
 * event, and the callback's delivery; an instance alone on its database sends no order event), counted as `kit_db_statements_total` counts them (every
 * statement, BEGIN and COMMIT included). The background loops are slowed to an hour so that the count
 * between two quiet moments (no job work woken, claimed or running) is the notification's alone; a duplicate costs its read and one guarded
 * statement that changes nothing. On PostgreSQL every statement of it runs by name (prepared once per
 * connection). And a rule the one-statement settlement keeps: a second channel
 * order paid after the order finished is recorded without a second transition or callback.
 */
import { signFields } from '../../src/payments/providers/protocol-v2/sign';
import { parseXml, toXml } from '../../src/payments/providers/protocol-v2/xml';
import { formatChinaTime } from '../../src/payments/providers/china-time';
import { PaymentStore } from '../../src/payments/payment-store';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { newOrder, payApi, payFixture, startReceiver, type PayFixture } from '../support/payments';
import { waitFor } from '../support/wait';

/** The bound of issue 34 on PostgreSQL; SQLite runs the same rules as statements of one transaction. */
const MAX = { postgres: { payment: 5, duplicate: 2 }, sqlite: { payment: 11, duplicate: 4 } };

/**
 * Whether the service's job work has ended, seen from inside the process (a look at the database would
 * add to the count): no queue woken and not yet looked at, no claim under way, no claimed job whose run
 * is not yet recorded. Watches from now on.
 */
function jobWorkEnded(kit: TestKit): () => boolean {
  const { jobs } = kit.runtime.services;
  const { store } = jobs;
  const woken = new Set<string>();
  const running = new Set<number>();
  let claiming = 0;
  const wake = jobs.wake.bind(jobs);
  jobs.wake = (queue) => {
    woken.add(queue);
    wake(queue);
  };
  const claim = store.claim.bind(store);
  store.claim = async (queue, ...rest) => {
    woken.delete(queue);
    claiming++;
    try {
      const rows = await claim(queue, ...rest);
      for (const r of rows) running.add(r.id);
      return rows;
    } finally {
      claiming--;
    }
  };
  const settle = store.settle.bind(store);
  store.settle = async (id, ...rest) => {
    try {
      return await settle(id, ...rest);
    } finally {
      running.delete(id);
    }
  };
  return () => woken.size === 0 && claiming === 0 && running.size === 0;
}

describeEachBackend(
  'database round trips of a payment notification',
  (backend) => {
    let kit: TestKit;
    let f: PayFixture;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let ended: () => boolean;

    beforeAll(async () => {
      receiver = await startReceiver();
      kit = await startTestKit(backend, { JOB_POLL_INTERVAL: '1h', CALLBACK_POLL_INTERVAL: '1h', EXPIRY_SWEEP_INTERVAL: '1h', CHAIN_SEAL_INTERVAL: '1h' });
      f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      // Alone on its database once its first second of listening has passed: no order events go out.
      if (kit.runtime.bridge) await waitFor(() => !kit.runtime.bridge!.sending, 'the first second of listening to pass');
      // What the start and the fixture set going has ended before the watch begins.
      await kit.settle();
      ended = jobWorkEnded(kit);
    });
    afterAll(async () => {
      await kit.close();
      await receiver.close();
    });

    const statements = () => kit.runtime.db.statements.count;
    const named = () => kit.runtime.db.statements.named;
    /** The count once the work under way has ended. */
    const quiet = async () => {
      await waitFor(ended, 'the job work to end');
      return statements();
    };

    const notification = async (prepayId: string, which = 0) => {
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[which];
      const m = JSON.parse(co.merchant_json);
      const fields: Record<string, string> = {
        return_code: 'SUCCESS',
        appid: m.appid,
        mch_id: m.mch_id,
        sub_mch_id: m.sub_mch_id,
        nonce_str: 'rt1',
        result_code: 'SUCCESS',
        openid: 'oSomeone',
        trade_type: co.trade_type,
        bank_type: 'OTHERS',
        total_fee: String(co.total_cents),
        cash_fee: String(co.total_cents),
        fee_type: 'CNY',
        transaction_id: `4200rt${Date.now()}`,
        out_trade_no: co.out_trade_no,
        time_end: formatChinaTime(Date.now()),
      };
      fields.sign = signFields(fields, kit.runtime.config.PAY_SP_KEY!, co.sign_type as 'MD5' | 'HMAC-SHA256');
      return toXml(fields);
    };
    const post = async (xml: string) => {
      const res = await fetch(`${kit.url}/pay-notify/social/pay`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: xml });
      return parseXml(await res.text()).return_code;
    };

    test('a payment notification with its callback, then a duplicate', async () => {
      const prepayId = await newOrder(f);
      await f.client.socialPayNative(prepayId);
      const xml = await notification(prepayId);

      const before = await quiet();
      const namedBefore = named();
      expect(await post(xml)).toBe('SUCCESS');
      await waitFor(() => receiver.received.length === 1, 'the callback');
      const paid = (await quiet()) - before;
      const paidNamed = named() - namedBefore;

      expect(await post(xml)).toBe('SUCCESS');
      const duplicate = (await quiet()) - before - paid;

      expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
      const callbacks = await kit.runtime.services.callbacks.history(prepayId);
      expect(callbacks.map((c) => [c.status, c.state])).toEqual([['finish', 'delivered']]);
      expect(receiver.received).toHaveLength(1);
      expect(paid).toBeLessThanOrEqual(MAX[backend.name].payment);
      expect(duplicate).toBeLessThanOrEqual(MAX[backend.name].duplicate);
      // Every one of them a named prepared statement on PostgreSQL: parsed and planned once per
      // connection, not on every payment (the callback's settlement with its attempt was not).
      if (backend.name === 'postgres') expect(paidNamed).toBe(paid);
    });

    test('channel orders read in the same turn: one statement on PostgreSQL, each caller its own row', async () => {
      const orderNos: string[] = [];
      for (let i = 0; i < 2; i++) {
        const prepayId = await newOrder(f);
        await f.client.socialPayNative(prepayId);
        orderNos.push((await kit.runtime.services.payments.state(prepayId)).channelOrders[0].out_trade_no);
      }
      const store = new PaymentStore(kit.runtime.db.db, backend.name, kit.runtime.services.clock);
      const [a, b] = orderNos;

      const before = await quiet();
      const namedBefore = named();
      const rows = await Promise.all([store.channelOrder(a), store.channelOrder(b), store.channelOrder(a), store.channelOrder('no-such-order')]);
      const together = (await quiet()) - before;
      expect(rows.map((r) => r?.out_trade_no)).toEqual([a, b, a, undefined]);
      // The reads of a notification's verification: SQLite runs each in this process, PostgreSQL sends the turn's as one.
      expect(together).toBe(backend.name === 'postgres' ? 1 : 4);
      if (backend.name === 'postgres') expect(named() - namedBefore).toBe(1);

      // A read alone is the prepared single-row statement; a read in a later turn is a statement of its own.
      const first = await store.channelOrder(b);
      const second = await store.channelOrder(b);
      expect([first?.out_trade_no, second?.out_trade_no]).toEqual([b, b]);
      expect((await quiet()) - before - together).toBe(2);
    });

    test('a second channel order paid after the order finished: recorded, the order stays finish, one callback', async () => {
      const prepayId = await newOrder(f);
      // The scan code, then the app flow: the first channel order is closed, a second one placed.
      await f.client.socialPayNative(prepayId);
      await payApi.app(f.client, prepayId);
      const orders = (await kit.runtime.services.payments.state(prepayId)).channelOrders;
      expect(orders.map((o) => o.state).sort()).toEqual(['closed', 'open']);
      const open = orders.findIndex((o) => o.state === 'open');
      expect(await post(await notification(prepayId, open))).toBe('SUCCESS');
      expect(await post(await notification(prepayId, 1 - open))).toBe('SUCCESS');
      await waitFor(() => receiver.received.some((r) => r.body.includes(prepayId)), 'the callback');
      await quiet();
      const state = await kit.runtime.services.payments.state(prepayId);
      expect(state.channelOrders.map((o) => o.state)).toEqual(['paid', 'paid']);
      expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
      expect((await kit.runtime.services.callbacks.history(prepayId)).map((c) => c.status)).toEqual(['finish']);
      expect(receiver.received.filter((r) => r.body.includes(prepayId))).toHaveLength(1);
    });
  },
  { protocols: ['v2'] },
);
