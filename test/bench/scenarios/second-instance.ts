/**
 * What a second instance costs (`second`; runs with BENCH_INSTANCES=2). On a machine whose cores the
 * database, the load and the instances share, two instances cannot outrun one; what can be measured
 * is the CPU per request of the fleet with the load on one instance against the load spread over
 * both, in the same run, for signed creation, signed reads and notifications with their callbacks.
 * Part of what a second process adds is two processes sharing the cores at all: the bare route as
 * one process against two, measured before and after, is that part's yardstick.
 */
import type { Bench, LoadRun, Scenario } from '../lib/bench';
import { Driver } from '../lib/rpc';
import { channelOrders, finishedCount, payableOrders } from '../lib/orders';
import { delivered, firstSent, notifyAll, receiver } from '../lib/payments';
import { mean, round } from '../lib/stats';
import type { ChannelOrder } from '../lib/notifications';
import type { RequestKind } from '../lib/requests';
import { readRequest } from './api';
import { countersPer, type ProcCounters } from '../lib/proc';

/** Issue 34: a second kit instance adds at most this many points of CPU per request more than a second bare process. */
export const MAX_EXTRA_POINTS = 10;

/** CPU per request (µs) with the load on one process and spread over two. */
export interface CpuPair {
  one: number;
  two: number;
}

/** Percent more CPU per request with two processes than with one. */
export function addedPercent(p: CpuPair): number {
  return (p.two / p.one - 1) * 100;
}

/** The kit's added CPU against the bare route's, in percentage points, and whether it is within the target. */
export function secondInstanceVerdict(kit: CpuPair, bare: CpuPair): { kit: number; bare: number; points: number; met: boolean } {
  const k = addedPercent(kit);
  const b = addedPercent(bare);
  return { kit: k, bare: b, points: k - b, met: k - b <= MAX_EXTRA_POINTS };
}

interface Measured extends CpuPair {
  /** Rates with the load on one instance and on both (answers or notifications per second). */
  rates: [number, number];
  /** Where the CPU went, per request, on one and on both. */
  counters: [ProcCounters, ProcCounters];
  notes?: string;
}

/** Per request: user and system CPU, system calls, waits and preemptions (context switches). */
export function describeCounters(c: ProcCounters): string {
  return `${round(c.userMs * 1000, 0)} + ${round(c.systemMs * 1000, 0)} µs user + system, ${round(c.syscalls, 1)} syscalls, ${round(c.waits, 2)} waits, ${round(c.preemptions, 2)} preemptions`;
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${round(x, 1)} %`;

/**
 * One, two, two, one: a drift in either direction during the scenario (code still being compiled,
 * tables growing) weighs on both sides alike. Runs of one configuration moved by more than the
 * target between the start and the end of a scenario when they were measured once each.
 */
export async function abba<T>(one: () => Promise<T>, two: () => Promise<T>): Promise<{ one: T[]; two: T[] }> {
  const first = await one();
  const second = await two();
  const third = await two();
  const fourth = await one();
  return { one: [first, fourth], two: [second, third] };
}

/** The mean of counters per request. */
export function meanCounters(xs: readonly ProcCounters[]): ProcCounters {
  const m = (k: keyof ProcCounters) => mean(xs.map((x) => x[k]));
  return { userMs: m('userMs'), systemMs: m('systemMs'), syscalls: m('syscalls'), waits: m('waits'), preemptions: m('preemptions') };
}

/** What a run gives this scenario: CPU per request, the rate and the counters per request. */
type RunFigures = Pick<LoadRun, 'cpuUs' | 'rate' | 'counters'>;

/** Each side's runs averaged. */
function summed(runs: { one: RunFigures[]; two: RunFigures[] }, notes?: string): Measured {
  const side = (rs: RunFigures[]) => ({
    cpu: mean(rs.map((r) => r.cpuUs)),
    rate: mean(rs.map((r) => r.rate)),
    counters: meanCounters(rs.map((r) => r.counters!)),
  });
  const [one, two] = [side(runs.one), side(runs.two)];
  return { one: one.cpu, two: two.cpu, rates: [one.rate, two.rate], counters: [one.counters, two.counters], notes };
}

async function requests(b: Bench, request: RequestKind): Promise<Measured> {
  const counters = () => b.fleet.counters();
  // Each run warmed up: the second instance's code paths are compiled before its clock starts too.
  const runs = await abba(
    () => b.load([b.fleet.urls[0]], request, { warmup: true, counters }),
    () => b.load(b.fleet.urls, request, { warmup: true, counters }),
  );
  const failed = [...runs.one, ...runs.two].reduce((n, r) => n + r.non2xx + r.errors, 0);
  return summed(runs, failed ? `**${failed} answers not 2xx or failed**` : undefined);
}

/** The fleet's CPU per notification, with its callback delivered, and the notifications' rate. */
async function notificationRun(b: Bench, orders: ChannelOrder[], urls: readonly string[], rcv: Driver, callbacksBefore: number) {
  await b.fleet.settle();
  const statementsBefore = await b.fleet.statements();
  const cpuBefore = b.fleet.cpuMs();
  const countersBefore = b.fleet.counters();
  const parts = await notifyAll(b, orders, 32, urls);
  const last = Math.max(...parts.map((p) => p.answered.reduce((m, x) => Math.max(m, x), 0)));
  const got = await delivered(rcv, callbacksBefore + orders.length);
  await b.fleet.settle();
  const cpuUs = ((b.fleet.cpuMs() - cpuBefore) * 1000) / orders.length;
  const counters = countersPer(countersBefore, b.fleet.counters(), orders.length);
  const statementsAfter = await b.fleet.statements();
  const acked = parts.reduce((s, p) => s + p.acked.reduce((x, y) => x + y, 0), 0);
  return {
    cpuUs,
    counters,
    rate: (orders.length / (last - firstSent(parts))) * 1000,
    acked,
    delivered: got,
    roundTrips: statementsBefore === undefined || statementsAfter === undefined ? undefined : (statementsAfter - statementsBefore) / orders.length,
  };
}

async function notifications(b: Bench): Promise<Measured> {
  const n = Number(process.env.BENCH_NOTIFICATIONS ?? 6000);
  const batch = Math.round(n / 4);
  const warm = Math.round(n / 6);
  const { receiver: rcv, shop } = await receiver(b, 'ok');
  const all = await channelOrders(
    b,
    (await payableOrders(b, 4 * batch + warm, shop)).map((o) => o.prepayId),
  );
  let sent = 0;
  let callbacks = 0;
  const next = async (urls: readonly string[], size: number) => {
    const r = await notificationRun(b, all.slice(sent, sent + size), urls, rcv, callbacks);
    sent += size;
    callbacks = r.delivered;
    return r;
  };
  // Unmeasured, over both instances: both have compiled the path before either is measured.
  await next(b.fleet.urls, warm);
  const runs = await abba(
    () => next([b.fleet.urls[0]], batch),
    () => next(b.fleet.urls, batch),
  );
  const finished = await finishedCount(
    b,
    all.map((o) => o.prepayId),
  );
  const refused = 4 * batch - [...runs.one, ...runs.two].reduce((s, r) => s + r.acked, 0);
  const trips = (rs: Array<{ roundTrips?: number }>) =>
    rs.some((r) => r.roundTrips === undefined) ? '' : `, ${round(mean(rs.map((r) => r.roundTrips!)), 2)} round trips`;
  return summed(
    runs,
    `${batch} notifications a run, 32 in flight, CPU until their callbacks were delivered${trips(runs.one)} on one${trips(runs.two)} on both; ` +
      `${finished} of ${all.length} orders finish${refused ? `, **${refused} refused**` : ''}`,
  );
}

export const secondInstance: Scenario = {
  id: 'second',
  name: 'what a second instance costs',
  async run(b) {
    if (b.fleet.instances.length < 2) {
      console.log('  (measured with BENCH_INSTANCES=2 only)');
      return;
    }
    const bareRuns = () =>
      abba(
        () => b.bareSpread(1),
        () => b.bareSpread(2),
      );
    const bareBefore = await bareRuns();
    const kinds: Array<[string, Measured]> = [['signed creation', await requests(b, { kind: 'create', subMerchantId: b.demo.subMerchantId })]];
    kinds.push(['signed detail read', await requests(b, await readRequest(b))]);
    kinds.push(['notifications with their callbacks', await notifications(b)]);
    await b.release();
    const bareAfter = await bareRuns();
    const before = summed(bareBefore);
    const after = summed(bareAfter);
    const bare = summed({ one: [...bareBefore.one, ...bareAfter.one], two: [...bareBefore.two, ...bareAfter.two] });
    b.report({
      scenario: 'a second bare-route process (yardstick): CPU per request, one process → two',
      cpuUs: bare.two,
      notes:
        `${round(bare.one, 0)} → ${round(bare.two, 0)} µs, ${pct(addedPercent(bare))} (before the kit's runs ${pct(addedPercent(before))}, after ${pct(addedPercent(after))}; ` +
        `each side the mean of four runs, in the order one, two, two, one, twice); ` +
        `${Math.round(bare.rates[0])} → ${Math.round(bare.rates[1])} req/s; ` +
        `per request, one: ${describeCounters(bare.counters[0])}; two: ${describeCounters(bare.counters[1])}`,
    });
    for (const [label, m] of kinds) {
      const v = secondInstanceVerdict(m, bare);
      b.report({
        scenario: `a second instance, ${label}: the fleet's CPU per request, load on one instance → spread over both`,
        cpuUs: m.two,
        target: `≤ ${MAX_EXTRA_POINTS} points over the bare route's`,
        met: v.met && !m.notes?.includes('**'),
        notes:
          `${round(m.one, 0)} → ${round(m.two, 0)} µs (each the mean of two runs, in the order one, two, two, one), ${pct(v.kit)} against the bare route's ${pct(v.bare)}: ${round(v.points, 1)} points; ` +
          `${Math.round(m.rates[0])} → ${Math.round(m.rates[1])}/s (${round(m.rates[1] / m.rates[0], 2)}×); ` +
          `per request on one: ${describeCounters(m.counters[0])}; on both: ${describeCounters(m.counters[1])}` +
          (m.notes ? `; ${m.notes}` : ''),
      });
    }
  },
};
