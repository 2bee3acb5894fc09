/** Several stateless instances on one PostgreSQL database (docs/operations.md). */
import { signRequest, encodeQuery } from '@kit/shared';
import { backends } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { newOrder, payByCode, payFixture } from '../support/payments';
import { waitFor } from '../support/wait';

const pg = backends().find((b) => b.name === 'postgres');
const describePg = pg ? describe : describe.skip;

describePg('two instances sharing PostgreSQL', () => {
  let a: TestKit;
  let b: TestKit;
  beforeAll(async () => {
    const env = pg!.env();
    // The longest hold: a test that needs a call to stay held until it is woken also stops the
    // holding instance's clock, so that no hold ends before the wake-up, however slow the machine.
    const hold = { WAIT_FOR_FINISH_HOLD: '55s' };
    a = await startTestKit(pg!, { ...env, ...hold });
    b = await startTestKit(pg!, { ...env, ...hold });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await pg!.cleanup();
  });

  it('a change committed on one instance wakes a detail call held by the other (LISTEN/NOTIFY)', async () => {
    const app = await a.newApp();
    const { subId } = await createMerchants(app.client, app.appId);
    const { prepayId } = await app.client.createPrepay({ subMerchantId: subId, totalAmount: '9.99' });
    const onB = new (app.client.constructor as typeof import('@kit/shared').KitClient)({ baseUrl: b.url, appId: app.appId, appSecret: app.appSecret });
    const waiting = b.runtime.services.events.waiting;
    // b's clock stands still: its hold cannot end, so an answer is the wake-up (design 7.1: no time figure here).
    b.clock.freeze();
    try {
      const held = onB.prepayDetail(prepayId, { wait: true });
      await waitFor(() => b.runtime.services.events.waiting === waiting + 1, 'the call held on b');
      const { prepay } = a.runtime.services;
      await prepay.transition(a.runtime.db.db, prepayId, 'active', 'finish', { payment_time: Date.now() });
      prepay.announce(prepayId, 'finish');
      expect(await held).toMatchObject({ status: 'finish' });
    } finally {
      b.clock.resume();
    }
  });

  it('changes announced in the same turn wake every call held on the other instance (one NOTIFY carries many)', async () => {
    const app = await a.newApp();
    const { subId } = await createMerchants(app.client, app.appId);
    // More than fit in one NOTIFY payload (about 7,900 bytes, some 30 bytes an event).
    const ids = await Promise.all(
      Array.from({ length: 300 }, () => app.client.createPrepay({ subMerchantId: subId, totalAmount: '1.00' }).then((o) => o.prepayId)),
    );
    const onB = new (app.client.constructor as typeof import('@kit/shared').KitClient)({ baseUrl: b.url, appId: app.appId, appSecret: app.appSecret });
    const waiting = b.runtime.services.events.waiting;
    // b's clock stands still: no hold can end, so every answer is a wake-up (how fast is the bench's to say).
    b.clock.freeze();
    try {
      const held = ids.map((id) => onB.prepayDetail(id, { wait: true }));
      await waitFor(() => b.runtime.services.events.waiting === waiting + ids.length, 'every call held on b');
      const { prepay } = a.runtime.services;
      for (const id of ids) await prepay.transition(a.runtime.db.db, id, 'active', 'finish', { payment_time: Date.now() });
      for (const id of ids) prepay.announce(id, 'finish');
      const answers = await Promise.all(held);
      expect(answers.every((d) => d.status === 'finish')).toBe(true);
    } finally {
      b.clock.resume();
    }
  });

  it('a payment settled on one instance wakes the call held on the other (its NOTIFY follows the commit)', async () => {
    const f = await payFixture(a);
    const prepayId = await newOrder(f);
    const onB = new (f.client.constructor as typeof import('@kit/shared').KitClient)({ baseUrl: b.url, appId: f.appId, appSecret: f.appSecret });
    const waiting = b.runtime.services.events.waiting;
    // b's clock stands still: its hold cannot end, so the answer is the wake-up.
    b.clock.freeze();
    try {
      const held = onB.prepayDetail(prepayId, { wait: true });
      await waitFor(() => b.runtime.services.events.waiting === waiting + 1, 'the call held on b');
      // Paid in a's sandbox, whose notification goes to a: a settles it, b only hears of it.
      await payByCode(a, f, prepayId);
      expect(await held).toMatchObject({ status: 'finish' });
    } finally {
      b.clock.resume();
    }
    expect((await a.runtime.services.callbacks.history(prepayId)).map((c) => c.status)).toEqual(['finish']);
  });

  it('refuses a signature replayed against another instance', async () => {
    const app = await a.newApp();
    const { subId } = await createMerchants(app.client, app.appId);
    const body = JSON.stringify({ subMerchantId: subId, totalAmount: '1.00', orderId: null });
    const query = encodeQuery(signRequest({ method: 'POST', path: '/submerchant-pay/', body }, app));
    const send = (url: string) => fetch(`${url}/submerchant-pay/?${query}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect((await send(a.url)).status).toBe(200);
    const replay = await send(b.url);
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ error: 'signature_replayed' });
  });
});
