/**
 * Held detail calls (4.2 with waitForFinish=1) as a busy shop sees them: BENCH_HOLDS (10,000)
 * payers waiting at once, from several load processes. Measured on the instance holding them:
 * its RSS; payments arriving at 200/s (the platform's notifications) waking their calls; then the
 * payments of all held calls arriving in one burst. With two instances the calls are held by one
 * and the payments processed by the other, so every wake-up crosses instances (LISTEN/NOTIFY).
 */
import { Driver, now } from '../lib/rpc';
import { latency, round } from '../lib/stats';
import { heapGrowth, readHeap } from '../lib/heap-diff';
import { channelOrders, finishedCount, payableOrders } from '../lib/orders';
import type { Bench, Scenario } from '../lib/bench';
import type { HoldAnswer } from '../drivers/holds';
import type { NotifyAnswer, NotifyArgs } from '../drivers/notify';
import type { ChannelOrder } from '../lib/notifications';

const PER_PROCESS = 2_500;
const RATE = 200;
const MB = 2 ** 20;

export const holds: Scenario = {
  id: 'holds',
  name: 'held waitForFinish calls',
  async run(b) {
    const n = b.opts.holds;
    // Held calls end after 55 s: the paced phase leaves room for opening and the burst.
    const paced = Math.round(RATE * Math.min(b.opts.duration, 20));
    const holdAt = b.fleet.instances.length - 1;
    const payUrl = b.fleet.urls[0];
    const holdUrl = b.fleet.urls[holdAt];
    const crossing = holdAt !== 0 ? '; held on instance 2, paid through instance 1' : '';

    const setupStart = now();
    const orders = await payableOrders(b, n + paced);
    const setupS = (now() - setupStart) / 1000;
    const channel = await channelOrders(
      b,
      orders.map((o) => o.prepayId),
    );
    const burst = channel.slice(0, n);
    const pacedOrders = channel.slice(n);

    await b.fleet.settle([holdAt]);
    const before = b.fleet.memory(holdAt);
    const heapBefore = b.opts.heapSnapshots ? await b.fleet.heapSnapshot(holdAt) : undefined;
    const holders = Array.from({ length: Math.ceil(n / PER_PROCESS) + 1 }, () => b.driver('holds'));
    const openStart = now();
    await Promise.all(
      holders
        .slice(0, -1)
        .map((h, i) => h.call('open', { url: holdUrl, creds: b.creds, ids: burst.slice(i * PER_PROCESS, (i + 1) * PER_PROCESS).map((o) => o.prepayId) })),
    );
    await b.fleet.settle([holdAt]);
    const openS = (now() - openStart) / 1000;
    const held = b.fleet.memory(holdAt);
    const heap = heapBefore ? heapPerCall(heapBefore, await b.fleet.heapSnapshot(holdAt), n) : '';
    const early = await answered(holders);
    b.report({
      scenario: `${n.toLocaleString('en-US')} held waitForFinish calls: server RSS`,
      target: '≤ 250 MB',
      met: held.rss <= 250 * MB && early.length === 0,
      notes:
        `${round(held.rss / MB)} MB held${holdAt ? ' by instance 2' : ''} (${round(before.rss / MB)} MB before, ` +
        `${round((held.rss - before.rss) / n / 1024, 1)} KB per call); opened in ${round(openS)} s from ${holders.length - 1} processes` +
        (early.length ? `; ${early.length} answered early` : '') +
        heap +
        `; setup of ${orders.length} payable orders through the API took ${round(setupS)} s`,
    });

    // Payments at 200/s while the others stay held.
    const extra = holders.at(-1)!;
    await extra.call('open', { url: holdUrl, creds: b.creds, ids: pacedOrders.map((o) => o.prepayId) });
    await b.fleet.settle([holdAt]);
    const pacedSent = await notify(b, payUrl, pacedOrders, { rate: RATE });
    const pacedAnswers = await answers(extra, pacedOrders.length);
    const pacedLat = latencies(pacedOrders, pacedAnswers, pacedSent.sent);
    const pacedWake = latencies(pacedOrders, pacedAnswers, pacedSent.answered);
    const pacedRefused = pacedOrders.length - pacedSent.acked.reduce((s, x) => s + x, 0);
    b.report({
      scenario: `… payments at ${RATE}/s wake their held calls (notification sent → held answer)`,
      p50: pacedLat.p50,
      p99: pacedLat.p99,
      target: 'p99 ≤ 50 ms',
      met: pacedLat.p99 <= 50 && pacedLat.missing === 0 && pacedRefused === 0,
      notes:
        `${pacedOrders.length} payments${crossing}; after the payment committed (notification answered): p50 ${round(pacedWake.p50)} ms, p99 ${round(pacedWake.p99)} ms; ` +
        `${pacedLat.notFinish} answers not finish, ${pacedLat.missing} missing` +
        (pacedRefused ? `; **${pacedRefused} notifications refused**` : ''),
    });

    // The payments of all held calls at once.
    const burstStart = now();
    const cpuBefore = b.fleet.cpuMs();
    const sent = await notify(b, payUrl, burst, { concurrency: 256 });
    const all = await Promise.all(holders.slice(0, -1).map((h, i) => answers(h, Math.min(PER_PROCESS, n - i * PER_PROCESS))));
    const recalls = (await Promise.all(holders.map((h) => h.call<{ recalls: number }>('answers', {})))).reduce((sum, r) => sum + r.recalls, 0);
    const lastAnswer = Math.max(...all.flat().map((a) => a.at));
    const cpuMs = b.fleet.cpuMs() - cpuBefore;
    const wake = latencies(burst, all.flat(), sent.answered);
    const fromStart = latencies(burst, all.flat(), new Float64Array(burst.length).fill(burstStart));
    const acked = sent.acked.reduce((s, x) => s + x, 0);
    const finished = await finishedCount(
      b,
      burst.map((o) => o.prepayId),
    );
    b.report({
      scenario: `… all ${n.toLocaleString('en-US')} paid at once (payment committed → held answer)`,
      rate: { value: (n / (lastAnswer - burstStart)) * 1000, unit: 'answers/s' },
      p50: wake.p50,
      p99: wake.p99,
      target: 'p99 ≤ 1 s',
      met: wake.p99 <= 1000 && wake.missing === 0 && acked === n,
      notes:
        `${n} notifications, 256 in flight, answered in ${round(sent.elapsedMs / 1000, 1)} s (${acked} acknowledged, ${finished} orders finish); ` +
        `from the first notification: p50 ${Math.round(fromStart.p50)} ms, p99 ${Math.round(fromStart.p99)} ms, last answer ${round((lastAnswer - burstStart) / 1000, 1)} s; ` +
        `server CPU ${Math.round((cpuMs * 1000) / n)} µs per paid held call; ${wake.notFinish} answers not finish, ${wake.missing} missing` +
        (recalls ? `; ${recalls} calls held past 55 s and called again` : '') +
        crossing,
    });
    await b.release();
  },
};

async function notify(b: Bench, url: string, orders: ChannelOrder[], mode: { rate?: number; concurrency?: number }): Promise<NotifyAnswer> {
  const d = Driver.start('notify');
  try {
    return await d.call<NotifyAnswer>('send', { url, platform: b.fleet.platform, orders, ...mode } satisfies NotifyArgs);
  } finally {
    await d.stop();
  }
}

async function answered(holders: Driver[]): Promise<HoldAnswer[]> {
  const parts = await Promise.all(holders.map((h) => h.call<{ answers: HoldAnswer[] }>('answers', {})));
  return parts.flatMap((p) => p.answers);
}

async function answers(h: Driver, atLeast: number): Promise<HoldAnswer[]> {
  return (await h.call<{ answers: HoldAnswer[] }>('answers', { atLeast, timeoutMs: 60_000 })).answers;
}

/** Answer time minus `from[i]` for each order's answer; counts missing and non-finish answers. */
function latencies(orders: ChannelOrder[], got: HoldAnswer[], from: Float64Array) {
  const byId = new Map(got.map((a) => [a.prepayId, a]));
  const samples: number[] = [];
  let missing = 0;
  let notFinish = 0;
  orders.forEach((o, i) => {
    const a = byId.get(o.prepayId);
    if (!a) return missing++;
    if (a.status !== 'finish') notFinish++;
    samples.push(a.at - from[i]);
  });
  return { ...latency(Float64Array.from(samples)), missing, notFinish };
}

/** BENCH_HEAP_SNAPSHOTS: the JS heap's growth per held call, by constructor (printed in full, the largest in the note). */
function heapPerCall(beforeFile: string, afterFile: string, n: number): string {
  const { perUnit, groups } = heapGrowth(readHeap(beforeFile), readHeap(afterFile), n);
  console.log(`  JS heap per held call: ${Math.round(perUnit)} B`);
  for (const g of groups.slice(0, 25)) console.log(`    ${Math.round(g.bytes).toString().padStart(6)} B  ${g.count.toFixed(2).padStart(6)} ×  ${g.name}`);
  const top = groups
    .slice(0, 5)
    .map((g) => `${g.name} ${Math.round(g.bytes)} B`)
    .join(', ');
  return `; JS heap per held call ${round(perUnit / 1024, 1)} KB (heap snapshots; they collect garbage and take memory themselves, so this run's RSS is not comparable), largest: ${top}`;
}
