/**
 * Order events between instances on PostgreSQL go only where another instance listens
 * (`orders/pg-event-bridge.ts`): a NOTIFY serializes commits database-wide, so an instance that
 * hears no other sends none. The other instance here is a plain PostgreSQL session speaking the
 * bridge's payloads: `<instance>` alone is a hello, `<instance> <prepayId> <status> …` are events.
 */
import pg from 'pg';
import { backends } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { newOrder, payByCode, payFixture, type PayFixture } from '../support/payments';
import { waitFor } from '../support/wait';

const backend = backends().find((b) => b.name === 'postgres');
const describePg = backend ? describe : describe.skip;

/** A session on the kit's channel, as another instance would hold it. */
async function peer(kit: TestKit) {
  const channel = `kit_orders_${kit.runtime.db.schema}`;
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  /** What the kit sent: a session hears its own NOTIFYs too, and those are left out. */
  const heard: string[] = [];
  const mine = new Set<string>();
  client.on('notification', (m) => m.channel === channel && m.payload && !mine.has(m.payload.split(' ')[0]) && heard.push(m.payload));
  await client.query(`LISTEN "${channel}"`);
  const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
  return {
    /** Ends the kit's LISTEN session (not this one), as a database restart or a proxy would. */
    cutKitListener: () => client.query('select pg_terminate_backend(pid) from pg_stat_activity where query = $1 and pid <> $2', [`LISTEN "${channel}"`, pid]),
    heard,
    /** What it heard that carried events (not hellos). */
    events: () => heard.filter((p) => p.includes(' ')),
    hellos: () => heard.filter((p) => !p.includes(' ')),
    say: (payload: string) => {
      mine.add(payload.split(' ')[0]);
      return client.query('select pg_notify($1, $2)', [channel, payload]);
    },
    close: () => client.end(),
  };
}

const otherInstances = async (kit: TestKit) => {
  const text = await (await fetch(`${kit.url}/metrics`)).text();
  return Number(/^kit_other_instances (\d+)$/m.exec(text)?.[1]);
};

describePg('order events go where another instance listens', () => {
  let kit: TestKit;
  let f: PayFixture;
  let other: Awaited<ReturnType<typeof peer>>;

  beforeAll(async () => {
    kit = await startTestKit(backend!, { INSTANCE_HELLO_INTERVAL: '400ms' });
    f = await payFixture(kit);
    other = await peer(kit);
  });
  afterAll(async () => {
    await other?.close();
    await kit?.close();
    await backend!.cleanup();
  });

  const paid = async () => {
    const prepayId = await newOrder(f);
    await payByCode(kit, f, prepayId);
    await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'finish', 'the payment');
    return prepayId;
  };
  /** The other side's hellos keep the kit hearing it. */
  const keepSaying = (id: string) => setInterval(() => void other.say(id), 200);

  it('a lone instance says hello and sends no events: its payments commit without a NOTIFY', async () => {
    await waitFor(() => !kit.runtime.bridge!.sending, 'the first second of listening to pass');
    expect(await otherInstances(kit)).toBe(0);
    const prepayId = await paid();
    kit.runtime.services.prepay.announce(prepayId, 'finish');
    // The kit's next hello comes after anything it would have sent for the payment.
    const hellos = other.hellos().length;
    await waitFor(() => other.hellos().length > hellos, "the kit's next hello");
    expect(other.events()).toEqual([]);
  });

  it("sends a payment's event once another instance says hello, and stops when it falls silent", async () => {
    const saying = keepSaying('peer1');
    try {
      await waitFor(() => kit.runtime.bridge!.othersHeard === 1, 'the kit to hear the other instance');
      expect(await otherInstances(kit)).toBe(1);
      const prepayId = await paid();
      await waitFor(() => other.events().some((p) => p.split(' ').slice(1).join(' ') === `${prepayId} finish`), "the payment's event");
    } finally {
      clearInterval(saying);
    }
    // Three intervals without a word: no longer counted, and nothing more is sent.
    await waitFor(() => !kit.runtime.bridge!.sending, 'the other instance to be forgotten');
    const before = other.events().length;
    await paid();
    const hellos = other.hellos().length;
    await waitFor(() => other.hellos().length > hellos, "the kit's next hello");
    expect(other.events()).toHaveLength(before);
  });

  it('listens again when its session is cut, says hello, and is alone again once it hears no one', async () => {
    await waitFor(() => !kit.runtime.bridge!.sending, 'a lone instance');
    const hellos = other.hellos().length;
    await other.cutKitListener();
    await waitFor(() => other.hellos().length > hellos, "the kit's hello after reconnecting");
    await waitFor(() => !kit.runtime.bridge!.sending, 'the kit to be alone again');
  });

  it("wakes a call held here with another instance's event", async () => {
    const saying = keepSaying('peer2');
    try {
      const prepayId = await newOrder(f);
      const held = f.client.prepayDetail(prepayId, { wait: true });
      await waitFor(() => kit.runtime.services.events.waiting === 1, 'the held call');
      // The other instance settled it: the database says finish, its event says so here.
      await kit.runtime.services.prepay.transition(kit.runtime.db.db, prepayId, 'active', 'finish', { payment_time: Date.now() });
      await other.say(`peer2 ${prepayId} finish`);
      expect(await held).toMatchObject({ status: 'finish' });
    } finally {
      clearInterval(saying);
    }
  });
});

describePg('a new instance learns of the others at once', () => {
  let kit: TestKit;
  let other: Awaited<ReturnType<typeof peer>>;

  beforeAll(async () => {
    // No hello of its own for an hour: any hello it sends during the test is an answer.
    kit = await startTestKit(backend!, { INSTANCE_HELLO_INTERVAL: '1h' });
    other = await peer(kit);
  });
  afterAll(async () => {
    await other?.close();
    await kit?.close();
    await backend!.cleanup();
  });

  it("answers a newcomer's hello at once, and only the first", async () => {
    await other.say('newcomer');
    await waitFor(() => other.hellos().length === 1, "the kit's answer");
    expect(kit.runtime.bridge!.othersHeard).toBe(1);
    await other.say('newcomer');
    await other.say('newcomer');
    // A second newcomer is answered too, and after it the count says so; the first got one answer.
    await other.say('newcomer2');
    await waitFor(() => other.hellos().length === 2, 'the answer to the second newcomer');
    expect(kit.runtime.bridge!.othersHeard).toBe(2);
    expect(other.hellos()).toHaveLength(2);
  });
});
