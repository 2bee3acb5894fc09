import { TestClock } from '@kit/shared/test-clock';
import { OrderEvents } from './order-events';
import { CallerGone } from '../http/caller-gone';

/** Which of the given waits has resolved so far (after pending callbacks ran). */
async function settled(waits: Record<string, Promise<void>>): Promise<string[]> {
  const done: string[] = [];
  for (const [name, p] of Object.entries(waits)) void p.then(() => done.push(name));
  await new Promise((r) => setImmediate(r));
  return done.sort();
}

describe('OrderEvents', () => {
  let events: OrderEvents;
  let clock: TestClock;
  beforeEach(() => {
    clock = new TestClock({ frozen: true });
    events = new OrderEvents(clock);
  });
  afterEach(() => events.close());

  it('wakes every waiter of the published order and no other', async () => {
    const a1 = events.wait('A', 60_000);
    const a2 = events.wait('A', 60_000);
    const b = events.wait('B', 60_000);
    expect(events.waiting).toBe(3);
    events.publish({ prepayId: 'A', status: 'finish' });
    expect(await settled({ a1: a1.ready, a2: a2.ready, b: b.ready })).toEqual(['a1', 'a2']);
    expect(events.waiting).toBe(1);
  });

  it('ends a wait when its time passes, the earliest deadline first whatever the order they came in', async () => {
    const long = events.wait('L', 60_000);
    const short = events.wait('S', 30);
    clock.advance(29);
    expect(await settled({ long: long.ready, short: short.ready })).toEqual([]);
    clock.advance(1);
    expect(await settled({ long: long.ready, short: short.ready })).toEqual(['short']);
    expect(events.waiting).toBe(1);
  });

  it('cancel ends a wait once; a later publish of its order changes nothing', async () => {
    const a = events.wait('A', 60_000);
    const other = events.wait('A', 60_000);
    a.cancel();
    a.cancel();
    expect(await settled({ a: a.ready, other: other.ready })).toEqual(['a']);
    expect(events.waiting).toBe(1);
    events.publish({ prepayId: 'A', status: 'finish' });
    expect(await settled({ other: other.ready })).toEqual(['other']);
    expect(events.waiting).toBe(0);
  });

  it('a caller that hangs up ends its wait at once, with a CallerGone or an AbortSignal', async () => {
    const gone = new CallerGone();
    const controller = new AbortController();
    const viaGone = events.wait('A', 60_000, gone);
    const viaAbort = events.wait('B', 60_000, controller.signal);
    const stays = events.wait('C', 60_000, new CallerGone());
    gone.abort();
    controller.abort();
    expect(await settled({ viaGone: viaGone.ready, viaAbort: viaAbort.ready, stays: stays.ready })).toEqual(['viaAbort', 'viaGone']);
    expect(events.waiting).toBe(1);
  });

  it('a wait whose caller is already gone, or that starts after close, resolves at once', async () => {
    const gone = new CallerGone();
    gone.abort();
    const early = events.wait('A', 60_000, gone);
    events.close();
    const late = events.wait('B', 60_000);
    expect(await settled({ early: early.ready, late: late.ready })).toEqual(['early', 'late']);
    expect(events.waiting).toBe(0);
  });

  it('close releases every held wait', async () => {
    const waits = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`w${i}`, events.wait(`P${i % 2}`, 60_000).ready]));
    events.close();
    expect(await settled(waits)).toHaveLength(5);
    expect(events.waiting).toBe(0);
  });

  it('keeps counting and timing right after thousands of waits were woken (the queue is swept)', async () => {
    const held = events.wait('H', 500);
    // Some waits end by time first, so the queue's head has moved when it is swept.
    const timed = Array.from({ length: 5 }, (_, i) => events.wait(`T${i}`, 10).ready);
    clock.advance(10);
    await Promise.all(timed);
    const woken = Array.from({ length: 3000 }, (_, i) => events.wait(`P${i}`, 60_000));
    for (let i = 0; i < 3000; i++) events.publish({ prepayId: `P${i}`, status: 'finish' });
    await Promise.all(woken.map((w) => w.ready));
    expect(events.waiting).toBe(1);
    const short = events.wait('S', 20).ready;
    clock.advance(20);
    await short;
    // The wait that was held through the sweep still ends by its own time, and not before.
    expect(await settled({ held: held.ready })).toEqual([]);
    clock.advance(470);
    await held.ready;
    expect(events.waiting).toBe(0);
  });

  it('relays local publishes, delivers relayed ones without relaying back, and tells listeners of both', async () => {
    const relayed: string[] = [];
    const heard: string[] = [];
    events.addRelay((e) => relayed.push(e.prepayId));
    events.onChange((e) => heard.push(`${e.prepayId}:${e.status}`));
    const a = events.wait('A', 60_000);
    events.deliver({ prepayId: 'A', status: 'finish' });
    events.publish({ prepayId: 'B', status: 'cancel' });
    await a.ready;
    expect(relayed).toEqual(['B']);
    expect(heard).toEqual(['A:finish', 'B:cancel']);
  });
});
