/** The callback operations API (design 5.3) over real HTTP: list and its filters, paging, resend, recover, other apps, resend racing the worker. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KitApiError, KitClient, verifyCallback, type CallbackItem } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { SOCIAL_PARAMS, newOrder, payByCode, payFixture, startReceiver, type PayFixture } from '../support/payments';
import { waitFor } from '../support/wait';

const WAITS = Array<number>(12).fill(20);
const SCHEDULE = WAITS.map((ms) => `${ms}ms`).join(',');

describeEachBackend('callback operations', (backend) => {
  let kit: TestKit;

  beforeAll(async () => {
    kit = await startTestKit(backend, { CALLBACK_RETRY_SCHEDULE: SCHEDULE, CALLBACK_POLL_INTERVAL: '20ms' });
  });
  afterAll(() => kit.close());

  const one = async (f: PayFixture, prepayId: string): Promise<CallbackItem> => (await f.client.callbacks({ prepayId })).data.items[0];
  /** The attempts due now and every retry of the schedule after them, on the kit's clock (no waiting them out). */
  const throughSchedule = async () => {
    await kit.settle();
    for (const ms of WAITS) await kit.advance(ms);
  };
  const iso = (ms: number) => new Date(ms).toISOString();
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a refusal');
      },
      (e: KitApiError) => ({ http: e.httpStatus, error: e.error, msg: e.body.msg }),
    );

  test('a callback given up while the receiver was down is listed first-class, then delivered once by a resend', async () => {
    let up = false;
    const receiver = await startReceiver(() => (up ? { body: 'OK' } : { status: 503, body: 'maintenance '.repeat(40) }));
    try {
      const f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      const prepayId = await newOrder(f);
      await payByCode(kit, f, prepayId);
      await throughSchedule();
      const given = await waitFor(async () => ((await one(f, prepayId))?.state === 'given_up' ? one(f, prepayId) : null), 'given up');
      expect(given).toMatchObject({
        prepayId,
        event: 'finish',
        subMerchantId: f.subId,
        merchantId: f.parentId,
        url: `${receiver.url}/cb`,
        nextAttemptAt: null,
      });
      expect(given.attempts).toHaveLength(13);
      for (const a of given.attempts) {
        expect(a).toMatchObject({ httpStatus: 503, error: 'HTTP 503' });
        expect(a.answer).toBe('maintenance '.repeat(40).slice(0, 200));
        expect(a.latencyMs).toBeGreaterThanOrEqual(0);
      }
      // Nothing secret: neither the signature nor the app secret appears anywhere.
      expect(JSON.stringify(given)).not.toMatch(/_s=|_appid|_t=/);
      expect(JSON.stringify(given)).not.toContain(f.appSecret);
      // Counted where operators watch: the metric of attempts that used the last retry.
      const metrics = await (await fetch(`${kit.url}/metrics`)).text();
      expect(Number(/kit_callback_attempts_total\{outcome="gave_up"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
      const byState = await f.client.callbacks({ merchantId: f.parentId, state: 'given_up' });
      expect(byState.data.items.map((i) => i.id)).toEqual([given.id]);

      up = true;
      const before = receiver.received.length;
      expect((await f.client.resendCallback(given.id)).data).toEqual({ id: given.id, state: 'pending', resent: true });
      const done = await waitFor(async () => ((await one(f, prepayId))?.state === 'delivered' ? one(f, prepayId) : null), 'delivered');
      expect(done.attempts).toHaveLength(14);
      expect(done.attempts[13]).toMatchObject({ httpStatus: 200, error: null, answer: 'OK' });
      await kit.settle();
      expect(receiver.received.length - before).toBe(1);
      const last = receiver.received.at(-1)!;
      expect(verifyCallback({ url: last.url, rawBody: last.body }, f.appSecret, { appId: f.appId })).toMatchObject({ prepayId, status: 'finish' });
    } finally {
      await receiver.close();
    }
  });

  test('resending a delivered callback sends it again, freshly signed, as a new series', async () => {
    const receiver = await startReceiver();
    try {
      const f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      const prepayId = await newOrder(f);
      await payByCode(kit, f, prepayId);
      const delivered = await waitFor(async () => ((await one(f, prepayId))?.state === 'delivered' ? one(f, prepayId) : null), 'delivered');
      expect((await f.client.resendCallback(delivered.id)).data.resent).toBe(true);
      await waitFor(() => receiver.received.length === 2, 'the second delivery');
      const again = await waitFor(async () => ((await one(f, prepayId))?.state === 'delivered' ? one(f, prepayId) : null), 'delivered again');
      expect(again.attempts.map((a) => a.httpStatus)).toEqual([200, 200]);
      const [a, b] = receiver.received.map((r) => new URL(r.url, 'http://x').searchParams.get('_t'));
      expect(a).not.toBe(b);
      expect(JSON.parse(receiver.received[1].body)).toMatchObject({ prepayId, status: 'finish' });
    } finally {
      await receiver.close();
    }
  });

  test('racing resends of a delivered callback start one series, burst after burst, the receiver answering at once', async () => {
    const receiver = await startReceiver();
    try {
      const f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      const prepayId = await newOrder(f);
      await payByCode(kit, f, prepayId);
      const { id } = await waitFor(async () => ((await one(f, prepayId))?.state === 'delivered' ? one(f, prepayId) : null), 'delivered');
      for (let burst = 1; burst <= 10; burst++) {
        // Sent together, signed in the same instant: the client makes each `_t` unique by counting up a
        // millisecond, so on a flowing clock the tenth says it asked 9 ms after the first, and a series
        // delivered within those 9 ms ended before it asked (a second series, by the rule). The clock
        // stands still while they are answered: all ten asked at once.
        kit.clock.freeze();
        let answers;
        try {
          answers = await Promise.all(Array.from({ length: 10 }, () => f.client.resendCallback(id)));
          await waitFor(async () => (await one(f, prepayId)).state === 'delivered', `burst ${burst} delivered`);
        } finally {
          kit.clock.resume();
        }
        expect(answers.filter((a) => a.data.resent)).toHaveLength(1);
        await kit.settle();
        expect(receiver.received).toHaveLength(1 + burst);
      }
    } finally {
      await receiver.close();
    }
  });

  test('of two resends racing, the one whose write comes second changes nothing, even when it read the time first', async () => {
    // Two copies of the suite at once showed it: a call that read the time, then waited for a
    // connection, saw the other's write due later than its own "now" and brought it forward again.
    const store = kit.runtime.services.jobs.store;
    const now = store.clock.now();
    await store.enqueue(store.db, { queue: 'test.forward', key: 'k', ref: 'r', at: now + 3 * 3_600_000 }, 'once', now);
    const { id, next_at } = await store.db.selectFrom('jobs').select(['id', 'next_at']).where('queue', '=', 'test.forward').executeTakeFirstOrThrow();
    const seen = Number(next_at);
    expect(await store.bringForward('test.forward', id, seen, now + 5)).toBe(true);
    expect(await store.bringForward('test.forward', id, seen, now)).toBe(false);
    // Read again after that write: already due, nothing to bring forward.
    expect(await store.bringForward('test.forward', id, now + 5, now + 6)).toBe(false);
  });

  test('a resend of a pending callback waiting for its retry attempts it now, in its series', async () => {
    let up = false;
    const receiver = await startReceiver(() => (up ? { body: 'OK' } : { status: 503, body: 'down' }));
    // Hours between attempts: only the resend can bring the next one now.
    const slow = await startTestKit(backend, { CALLBACK_RETRY_SCHEDULE: '3h,3h,3h', CALLBACK_POLL_INTERVAL: '20ms' });
    try {
      const f = await payFixture(slow, { notifyCallbackUrl: `${receiver.url}/cb` });
      const prepayId = await newOrder(f);
      await payByCode(slow, f, prepayId);
      const waiting = await waitFor(async () => ((await one(f, prepayId))?.attempts.length === 1 ? one(f, prepayId) : null), 'the first attempt refused');
      expect(waiting.state).toBe('pending');
      expect(Date.parse(waiting.nextAttemptAt!) - slow.clock.now()).toBeGreaterThan(2 * 3_600_000);
      up = true;
      const answers = await Promise.all(Array.from({ length: 5 }, () => f.client.resendCallback(waiting.id)));
      expect(answers.filter((a) => a.data.resent)).toHaveLength(1);
      const done = await waitFor(async () => ((await one(f, prepayId))?.state === 'delivered' ? one(f, prepayId) : null), 'delivered now');
      // One series: its second attempt, not a new series' first.
      expect(done.attempts.map((a) => a.httpStatus)).toEqual([503, 200]);
      await slow.settle();
      expect(receiver.received).toHaveLength(2);
    } finally {
      await receiver.close();
      await slow.close();
    }
  });

  if (backend.name === 'postgres') {
    test('racing resends on two instances of one database start one series', async () => {
      const receiver = await startReceiver();
      const other = await startTestKit(
        backend,
        { DATA_DIR: kit.runtime.config.DATA_DIR, DATABASE_SCHEMA: kit.runtime.db.schema, CALLBACK_POLL_INTERVAL: '20ms' },
        { clock: kit.clock },
      );
      try {
        const f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
        const there = new KitClient({ baseUrl: other.url, appId: f.appId, appSecret: f.appSecret, clock: kit.clock });
        const prepayId = await newOrder(f);
        await payByCode(kit, f, prepayId);
        const { id } = await waitFor(async () => ((await one(f, prepayId))?.state === 'delivered' ? one(f, prepayId) : null), 'delivered');
        for (let burst = 1; burst <= 5; burst++) {
          const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? there : f.client).resendCallback(id)));
          expect(answers.filter((a) => a.data.resent)).toHaveLength(1);
          await waitFor(async () => (await one(f, prepayId)).state === 'delivered', `burst ${burst} delivered`);
          await Promise.all([kit.settle(), other.settle()]);
          expect(receiver.received).toHaveLength(1 + burst);
        }
      } finally {
        await receiver.close();
        await other.close();
      }
    });
  }

  test('filters: by order, by parent (its sub-merchants too) and by sub-merchant, by state, by window; pages with a cursor', async () => {
    let failing = '';
    const receiver = await startReceiver((r) => (JSON.parse(r.body).prepayId === failing ? { status: 500, body: 'no' } : { body: 'OK' }));
    try {
      const f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      const sm2 = (
        await f.client.createMerchant({
          type: 'subMerchant',
          parameters: { displayName: 'Second Shop', pw: f.pw, appId: f.appId, parentMerchantId: f.parentId },
        })
      ).data.id;
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const id = await newOrder(f, `1.0${i}`);
        ids.push(id);
        await payByCode(kit, f, id);
      }
      // Payments are notified asynchronously: the window's edge goes after the four callbacks exist.
      await waitFor(async () => (await f.client.callbacks({ merchantId: f.parentId })).data.items.length === 4, 'four callbacks');
      const middle = kit.clock.now();
      await kit.advance(20);
      const other = (await f.client.createPrepay({ subMerchantId: sm2, totalAmount: '2.00' })).prepayId;
      failing = other;
      await payByCode(kit, f, other);
      await throughSchedule();
      await waitFor(async () => {
        const items = (await f.client.callbacks({ merchantId: f.parentId })).data.items;
        return items.length === 5 && items.every((i) => i.state !== 'pending');
      }, 'all five settled');

      const all = await f.client.callbacks({ merchantId: f.parentId });
      expect(all.data.items.map((i) => i.prepayId)).toEqual([other, ...[...ids].reverse()]);
      expect(all.data.next).toBeUndefined();
      expect((await f.client.callbacks({ merchantId: f.subId })).data.items.map((i) => i.prepayId)).toEqual([...ids].reverse());
      expect((await f.client.callbacks({ merchantId: sm2 })).data.items.map((i) => i.prepayId)).toEqual([other]);
      expect((await f.client.callbacks({ prepayId: ids[1] })).data.items.map((i) => i.prepayId)).toEqual([ids[1]]);
      expect((await f.client.callbacks({ merchantId: f.parentId, state: 'delivered' })).data.items).toHaveLength(4);
      expect((await f.client.callbacks({ merchantId: f.parentId, state: 'given_up' })).data.items.map((i) => i.prepayId)).toEqual([other]);
      expect((await f.client.callbacks({ merchantId: f.parentId, state: 'pending' })).data.items).toHaveLength(0);
      expect((await f.client.callbacks({ merchantId: f.parentId, since: iso(middle) })).data.items.map((i) => i.prepayId)).toEqual([other]);
      expect((await f.client.callbacks({ merchantId: f.parentId, until: iso(middle) })).data.items).toHaveLength(4);

      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await f.client.callbacks({ merchantId: f.parentId, limit: 2, ...(cursor ? { cursor } : {}) });
        pages.push(page.data.items.map((i) => i.prepayId));
        cursor = page.data.next;
      } while (cursor);
      expect(pages).toEqual([[other, ids[3]], [ids[2], ids[1]], [ids[0]]]);
    } finally {
      await receiver.close();
    }
  });

  test('recover resends the given-up callbacks of a window, and only those', async () => {
    let up = false;
    const receiver = await startReceiver(() => (up ? { body: 'OK' } : { status: 502 }));
    try {
      const f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      const early = await newOrder(f);
      await payByCode(kit, f, early);
      await throughSchedule();
      await waitFor(async () => (await one(f, early))?.state === 'given_up', 'the early one given up');
      const since = iso(kit.clock.now());
      const late = [await newOrder(f), await newOrder(f)];
      for (const id of late) await payByCode(kit, f, id);
      await throughSchedule();
      await waitFor(async () => (await f.client.callbacks({ merchantId: f.parentId, state: 'given_up' })).data.items.length === 3, 'three given up');
      const until = iso(kit.clock.now() + 1000);

      up = true;
      expect((await f.client.recoverCallbacks({ merchantId: f.parentId, since, until })).data).toEqual({ resent: 2 });
      await waitFor(async () => (await f.client.callbacks({ merchantId: f.parentId, state: 'delivered' })).data.items.length === 2, 'two delivered');
      expect((await one(f, early)).state).toBe('given_up');
      const okBodies = receiver.received.slice(-2).map((r) => JSON.parse(r.body).prepayId);
      expect(okBodies.sort()).toEqual([...late].sort());
      // Nothing left to recover in that window; the sub-merchant's own id reaches the same callbacks.
      expect((await f.client.recoverCallbacks({ merchantId: f.subId, since, until })).data).toEqual({ resent: 0 });
      expect((await f.client.recoverCallbacks({ merchantId: f.subId, since: iso(0), until })).data).toEqual({ resent: 1 });
      await waitFor(async () => (await one(f, early)).state === 'delivered', 'the early one delivered');
    } finally {
      await receiver.close();
    }
  });

  test("another app's callbacks are not found; bad requests are refused with a clear error and change nothing", async () => {
    const receiver = await startReceiver();
    try {
      const f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      const prepayId = await newOrder(f);
      await payByCode(kit, f, prepayId);
      const item = await waitFor(async () => ((await one(f, prepayId))?.state === 'delivered' ? one(f, prepayId) : null), 'delivered');

      const stranger = await kit.newApp();
      const mine = await createMerchants(stranger.client, stranger.appId);
      await stranger.client.setPaymentParams(mine.parentId, 'SocialNative', SOCIAL_PARAMS);
      const notFound = { http: 404, error: 'not_found' };
      expect(await refusal(stranger.client.callbacks({ prepayId }))).toMatchObject(notFound);
      expect(await refusal(stranger.client.callbacks({ merchantId: f.parentId }))).toMatchObject(notFound);
      expect(await refusal(stranger.client.callbacks({ merchantId: f.subId }))).toMatchObject(notFound);
      expect(await refusal(stranger.client.resendCallback(item.id))).toMatchObject(notFound);
      expect(await refusal(stranger.client.recoverCallbacks({ merchantId: f.parentId, since: iso(0), until: iso(kit.clock.now()) }))).toMatchObject(notFound);
      expect(await refusal(f.client.resendCallback('999999999'))).toMatchObject(notFound);
      expect(await refusal(f.client.callbacks({ prepayId: 'nosuchorder' }))).toMatchObject(notFound);

      const bad = { http: 400, error: 'invalid_request' };
      expect(await refusal(f.client.callbacks({}))).toMatchObject({ ...bad, msg: expect.stringMatching(/prepayId or merchantId/) });
      expect(await refusal(f.client.callbacks({ prepayId, merchantId: f.parentId }))).toMatchObject(bad);
      expect(await refusal(f.client.callbacks({ merchantId: f.parentId, state: 'lost' as never }))).toMatchObject(bad);
      expect(await refusal(f.client.callbacks({ merchantId: f.parentId, since: 'yesterday' }))).toMatchObject({ ...bad, msg: expect.stringMatching(/since/) });
      expect(await refusal(f.client.callbacks({ merchantId: f.parentId, limit: 1000 }))).toMatchObject(bad);
      expect(await refusal(f.client.callbacks({ merchantId: f.parentId, cursor: 'abc' }))).toMatchObject(bad);
      expect(await refusal(f.client.resendCallback('x'))).toMatchObject(bad);
      expect(await refusal(f.client.recoverCallbacks({ merchantId: f.parentId, since: iso(kit.clock.now()), until: iso(0) }))).toMatchObject(bad);
      const unsigned = await fetch(`${kit.url}/callbacks?prepayId=${prepayId}`);
      expect([unsigned.status, ((await unsigned.json()) as { error: string }).error]).toEqual([401, 'signature_missing']);
      // Whatever the refused calls could have set going is due now: it has run.
      await kit.settle();
      expect(receiver.received).toHaveLength(1);
      expect((await one(f, prepayId)).attempts).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  test('resends racing the worker never double a delivery', async () => {
    // A receiver that holds each request until told to answer, so resends arrive while an attempt is in flight.
    // Once `holding` is off it answers at once (an attempt too many then shows instead of hanging).
    const held: Array<() => void> = [];
    const bodies: string[] = [];
    let holding = true;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        if (holding) held.push(() => res.end('OK'));
        else res.end('OK');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
    try {
      const f = await payFixture(kit, { notifyCallbackUrl: url });
      const prepayId = await newOrder(f);
      await payByCode(kit, f, prepayId);
      await waitFor(() => held.length === 1, 'the first attempt in flight');
      const item = await one(f, prepayId);
      expect(item.state).toBe('pending');
      const during = await Promise.all(Array.from({ length: 6 }, () => f.client.resendCallback(item.id)));
      expect(during.map((a) => a.data.resent)).toEqual(Array(6).fill(false));
      held.shift()!();
      await waitFor(async () => (await one(f, prepayId)).state === 'delivered', 'delivered');

      // Resends racing each other on a delivered callback: exactly one starts a new series.
      const after = await Promise.all(Array.from({ length: 6 }, () => f.client.resendCallback(item.id)));
      expect(after.filter((a) => a.data.resent)).toHaveLength(1);
      await waitFor(() => held.length === 1, 'the resent attempt in flight');
      // And resends racing the worker's run of that series add nothing either.
      expect((await Promise.all(Array.from({ length: 3 }, () => f.client.resendCallback(item.id)))).every((a) => !a.data.resent)).toBe(true);
      holding = false;
      held.shift()!();
      await waitFor(async () => (await one(f, prepayId)).state === 'delivered', 'delivered again');
      await kit.settle();
      expect(bodies).toHaveLength(2);
      expect(held).toHaveLength(0);
      expect((await one(f, prepayId)).attempts.map((a) => a.httpStatus)).toEqual([200, 200]);
    } finally {
      for (const release of held) release();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
