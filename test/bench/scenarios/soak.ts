/**
 * Soak (`npm run bench -- soak`, `BENCH_SOAK`, default 10m): a steady mix for a long time, to see
 * whether memory stays flat and calls stay as fast. Every 10 s: orders created through the API
 * with their scan-code payment, a held `waitForFinish` call on each, their payments notified at a
 * steady rate (each wakes its held call and sends its callback to the receiver), chain uploads, and
 * refunds: further orders paid by the sandbox's payer (the sandbox notifies the payment), then
 * refunded with 4.6 under the parent merchant's login (the sandbox completes each refund and sends
 * its refund notification; a `refunded` callback follows).
 * With several instances (BENCH_INSTANCES=2) the windows take turns: a window's orders, held calls,
 * uploads and refunds go to one instance and its notifications to the next, so wake-ups cross them.
 * Every instance's RSS (from /proc) and JS heap (`nodejs_heap_size_used_bytes` of GET /metrics) are
 * sampled at the end of every 10 s; one row per minute, the growth after the first minutes (after
 * the third in a run of five minutes or more, else after the first) and the p99s' trend.
 * With BENCH_HEAP_SNAPSHOTS=1, heap snapshots after minute 1 and at the end, and the retained heap's
 * growth between them by constructor (printed; the largest in the notes).
 */
import fs from 'node:fs';
import { now, sleep } from '../lib/rpc';
import { latency, round } from '../lib/stats';
import { channelOrders, type PayableOrder } from '../lib/orders';
import { heapGrowth, readHeap } from '../lib/heap-diff';
import type { Bench, Scenario } from '../lib/bench';
import type { NotifyAnswer, NotifyArgs } from '../drivers/notify';
import type { HoldAnswer } from '../drivers/holds';

const WINDOW_MS = 10_000;
/** Orders (and payments, held calls, callbacks) per 10 s window. */
const ORDERS_PER_WINDOW = 300;
const UPLOADS_PER_WINDOW = 20;
/** Orders paid through the sandbox and refunded per 10 s window. */
const REFUNDS_PER_WINDOW = 30;

/** `10m`, `90s`, `2h` or seconds. */
export function soakMs(text = process.env.BENCH_SOAK ?? '10m'): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text.trim());
  if (!m) throw new Error(`BENCH_SOAK must be like 10m, 90s or 2h, got "${text}"`);
  return Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 's' | 'm' | 'h'];
}

/** The instance's V8 heap (used, and its size with garbage and free room) and memory outside it (Buffers, SQLite's through `external`), MB, from GET /metrics. */
async function heapMb(url: string): Promise<{ used: number; total: number; external: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const lines = text.split('\n');
  const value = (name: string) => {
    const line = lines.find((l) => l.startsWith(`${name} `));
    return line ? Number(line.split(' ').pop()) / 2 ** 20 : NaN;
  };
  return { used: value('nodejs_heap_size_used_bytes'), total: value('nodejs_heap_size_total_bytes'), external: value('nodejs_external_memory_bytes') };
}

/** RssAnon (malloc and V8's heap) and RssFile (mapped files: code, SQLite's shared memory) of a process, MB. */
function rssParts(pid: number): { anon: number; file: number } {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)\\s+kB`, 'm').exec(text)?.[1] ?? NaN) / 1024;
  return { anon: mb('RssAnon'), file: mb('RssFile') };
}

const lowest = (part: Sample[], i: number, key: 'rssMb' | 'heapMb') => Math.min(...part.map((s) => s.memory[i][key]));
const highest = (part: Sample[], i: number, key: 'rssMb' | 'heapMb') => Math.max(...part.map((s) => s.memory[i][key]));

/**
 * Minutes left out before memory growth and trends are judged: a run of five minutes or more
 * leaves out three (caches, pools and V8's heap limits are still settling), a shorter one the first.
 */
export function settlingMinutes(minutes: number): number {
  return minutes >= 5 ? 3 : 1;
}

/**
 * Whether a series of per-minute p99s trends upward: the median of its last third against the
 * median of its first third. A trend is a rise by more than half and by more than 5 ms (a p99 of
 * a few ms moves by more than half from one minute to the next). Undefined below three minutes.
 */
export function p99Trend(perMinute: readonly number[]): { first: number; last: number; rising: boolean } | undefined {
  if (perMinute.length < 3) return undefined;
  const third = Math.floor(perMinute.length / 3);
  const median = (xs: readonly number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const first = median(perMinute.slice(0, third));
  const last = median(perMinute.slice(-third));
  return { first, last, rising: last > first * 1.5 && last - first > 5 };
}

interface InstanceMemory {
  rssMb: number;
  heapMb: number;
  heapTotalMb: number;
  externalMb: number;
  anonMb: number;
  fileMb: number;
}

interface Sample {
  at: number;
  /** By instance. */
  memory: InstanceMemory[];
  create: number[];
  notify: number[];
  held: number[];
  upload: number[];
  refund: number[];
  callbacks: number;
}

export const soak: Scenario = {
  id: 'soak',
  name: 'soak: mixed steady load',
  onlyWhenNamed: true,
  async run(b) {
    const total = soakMs();
    const urls = b.fleet.urls;
    const home = urls[0];
    const r = b.driver('receiver');
    const { url: receiverUrl } = await r.call<{ url: string }>('start', { creds: b.creds, mode: 'ok' });
    const merchant = b.driver('merchant');
    const shop = await merchant.call<string>('subMerchant', { url: home, creds: b.creds, parentId: b.demo.parentMerchantId, displayName: 'Bench soak' });
    await merchant.call('callbackUrl', { url: home, creds: b.creds, merchantId: shop, notifyCallbackUrl: receiverUrl });
    const holder = b.driver('holds');
    const notifier = b.driver('notify');
    const uploader = b.driver('merchant');
    const refunder = b.driver('merchant');
    const payer = b.driver('payer');
    /** Orders created, paid in the sandbox and refunded: the 4.6 latencies. */
    const refundRound = async (url: string): Promise<{ ms: number[]; refused: number; ids: string[] }> => {
      const orders = await refunder.call<PayableOrder[]>('orders', {
        url,
        creds: b.creds,
        subMerchantId: shop,
        count: REFUNDS_PER_WINDOW,
        native: true,
        concurrency: 4,
      });
      await payer.call('pay', { url, orders, gapMs: 20 });
      const ids = orders.map((o) => o.prepayId);
      // The sandbox notifies each payment right away; a refund needs the order `finish`.
      for (const deadline = now() + 5_000; (await countWithStatus(b, ids, 'finish')) < ids.length && now() < deadline;) await sleep(100);
      const r = await refunder.call<{ ms: Float64Array; refused: number }>('timedRefunds', {
        url,
        creds: b.creds,
        userId: b.demo.parentMerchantId,
        pw: b.demo.password,
        ids,
        concurrency: 4,
      });
      return { ms: [...r.ms], refused: r.refused, ids };
    };
    const refundIds: string[] = [];
    let refundsRefused = 0;
    let heapAfterMinute1: string | undefined;
    const samples: Sample[] = [];
    const started = now();
    let held = 0;
    // Notifications the service did not acknowledge: the platform would send them again, so the run fails.
    let refused = 0;
    for (let w = 0; now() - started < total; w++) {
      const windowStart = now();
      // Taking turns: this window's calls to one instance, its payments' notifications to the next.
      const url = urls[w % urls.length];
      const notifyUrl = urls[(w + 1) % urls.length];
      const created = await merchant.call<{ orders: Array<{ prepayId: string }>; ms: Float64Array }>('timedOrders', {
        url,
        creds: b.creds,
        subMerchantId: shop,
        count: ORDERS_PER_WINDOW,
        concurrency: 8,
      });
      const ids = created.orders.map((o) => o.prepayId);
      await holder.call('open', { url, creds: b.creds, ids });
      const orders = await channelOrders(b, ids);
      const [paid, uploads, refunds] = await Promise.all([
        notifier.call<NotifyAnswer>('send', { url: notifyUrl, platform: b.fleet.platform, orders, rate: ORDERS_PER_WINDOW / 5 } satisfies NotifyArgs),
        uploader.call<Float64Array>('timedUpload', { url, creds: b.creds, tag: `soak${w}`, calls: UPLOADS_PER_WINDOW, items: 50 }),
        refundRound(url),
      ]);
      refundsRefused += refunds.refused;
      refundIds.push(...refunds.ids);
      held += ids.length;
      refused += paid.acked.length - paid.acked.reduce((n, x) => n + x, 0);
      const answers = (await holder.call<{ answers: HoldAnswer[] }>('answers', { atLeast: held, timeoutMs: 10_000 })).answers;
      const at = new Map(answers.map((a) => [a.prepayId, a.at]));
      const heldMs = orders.flatMap((o, i) => (at.has(o.prepayId) ? [at.get(o.prepayId)! - paid.answered[i]] : []));
      const rest = WINDOW_MS - (now() - windowStart);
      if (rest > 0) await sleep(rest);
      const memory = await Promise.all(
        b.fleet.instances.map(async (instance, i): Promise<InstanceMemory> => {
          const heapNow = await heapMb(urls[i]);
          const parts = rssParts(instance.pid);
          return {
            rssMb: b.fleet.memory(i).rss / 2 ** 20,
            heapMb: heapNow.used,
            heapTotalMb: heapNow.total,
            externalMb: heapNow.external,
            anonMb: parts.anon,
            fileMb: parts.file,
          };
        }),
      );
      samples.push({
        at: now() - started,
        memory,
        create: [...created.ms],
        notify: [...paid.answered].map((t, i) => t - paid.sent[i]),
        held: heldMs,
        upload: [...uploads],
        refund: refunds.ms,
        callbacks: (await r.call<{ delivered: number }>('counts')).delivered,
      });
      if (b.opts.heapSnapshots && samples.length === Math.round(60_000 / WINDOW_MS)) heapAfterMinute1 = await b.fleet.heapSnapshot(0);
    }
    // The last refunds complete SANDBOX_REFUND_DELAY (1 s) after they were accepted.
    let refunded = 0;
    for (const deadline = now() + 10_000; (refunded = await countWithStatus(b, refundIds, 'refunded')) < refundIds.length && now() < deadline;)
      await sleep(200);
    const heap = heapAfterMinute1 ? heapDiff(heapAfterMinute1, await b.fleet.heapSnapshot(0)) : '';
    const p99 = (xs: number[]) => round(latency(Float64Array.from(xs)).p99, 1);
    const perMinute = Math.round(60_000 / WINDOW_MS);
    const instances = b.fleet.instances.map((_, i) => i);
    const named = (i: number) => (instances.length > 1 ? `instance ${i + 1} ` : '');
    const kinds = {
      creation: 'create',
      notification: 'notify',
      'held answer after its payment': 'held',
      'upload of 50 items': 'upload',
      refund: 'refund',
    } as const;
    const minuteP99s: Record<keyof typeof kinds, number[]> = {
      creation: [],
      notification: [],
      'held answer after its payment': [],
      'upload of 50 items': [],
      refund: [],
    };
    for (let m = 0; m * perMinute < samples.length; m++) {
      const part = samples.slice(m * perMinute, (m + 1) * perMinute);
      const last = part[part.length - 1];
      for (const [label, key] of Object.entries(kinds) as Array<[keyof typeof kinds, (typeof kinds)[keyof typeof kinds]]>)
        minuteP99s[label].push(p99(part.flatMap((s) => s[key])));
      const ranges = instances.map(
        (i) =>
          `${named(i)}RSS ${round(lowest(part, i, 'rssMb'), 0)}–${round(highest(part, i, 'rssMb'), 0)} MB, heap used ${round(lowest(part, i, 'heapMb'), 0)}–${round(highest(part, i, 'heapMb'), 0)} MB`,
      );
      b.report({
        scenario: `soak minute ${m + 1}: ${ranges.join('; ')}`,
        p99: p99(part.flatMap((s) => s.notify)),
        notes:
          `p99 ms: ${Object.keys(kinds)
            .map((label) => `${label} ${minuteP99s[label as keyof typeof kinds][m]}`)
            .join(', ')}; ` +
          instances
            .map(
              (i) =>
                `${named(i)}RSS per 10 s ${part.map((s) => round(s.memory[i].rssMb, 0)).join(' ')} MB, heap used ${part.map((s) => round(s.memory[i].heapMb, 0)).join(' ')} MB`,
            )
            .join('; ') +
          `; ${last.callbacks} callbacks delivered so far`,
      });
    }
    // Growth after the first minutes. Between two major collections V8 lets garbage pile up and its
    // heap grow (RSS with it, by tens of MB), then gives it back: one sample against another mostly
    // says where each fell in that cycle. So also each minute's lowest (what stays: a leak lifts
    // it) and highest (how far the cycle goes), the first minute after settling against the last
    // minute; the target applies to the lowest.
    const minutes = Math.floor(samples.length / perMinute);
    const settled = settlingMinutes(minutes);
    const base = samples[Math.min(settled * perMinute, samples.length - 1)];
    const last = samples[samples.length - 1];
    const reference = samples.length > settled * perMinute ? samples.slice(settled * perMinute, (settled + 1) * perMinute) : samples;
    const lastMinute = samples.slice(-perMinute);
    const pct = (from: number, to: number) => (to / from - 1) * 100;
    const change = (from: number, to: number) => `${round(from, 1)} → ${round(to, 1)} MB (${round(pct(from, to), 1)} %)`;
    const rssFloors = instances.map((i) => pct(lowest(reference, i, 'rssMb'), lowest(lastMinute, i, 'rssMb')));
    const growth = instances.map((i) => {
      const [from, to] = [base.memory[i], last.memory[i]];
      return (
        `${named(i)}minute ${settled + 1} → last minute, lowest: RSS ${change(lowest(reference, i, 'rssMb'), lowest(lastMinute, i, 'rssMb'))}, heap used ${change(lowest(reference, i, 'heapMb'), lowest(lastMinute, i, 'heapMb'))}; ` +
        `highest: RSS ${change(highest(reference, i, 'rssMb'), highest(lastMinute, i, 'rssMb'))}, heap used ${change(highest(reference, i, 'heapMb'), highest(lastMinute, i, 'heapMb'))}; ` +
        `first sample after minute ${settled} → last: RSS ${change(from.rssMb, to.rssMb)}, heap used ${change(from.heapMb, to.heapMb)}, ` +
        `of which RssAnon ${change(from.anonMb, to.anonMb)}, RssFile ${change(from.fileMb, to.fileMb)}, V8 heap size ${change(from.heapTotalMb, to.heapTotalMb)}, external ${change(from.externalMb, to.externalMb)}`
      );
    });
    const trends = (Object.keys(minuteP99s) as Array<keyof typeof kinds>).map((label) => ({ label, trend: p99Trend(minuteP99s[label].slice(settled)) }));
    const rising = trends.filter((t) => t.trend?.rising);
    const judged = trends.every((t) => t.trend !== undefined);
    b.report({
      scenario: `soak: ${round(total / 60_000, 1)} min of mixed steady load${instances.length > 1 ? ` on ${instances.length} instances` : ''}, memory growth after minute ${settled} and the p99s' trend`,
      target: '≤ 5 % (lowest RSS), no rising p99',
      met:
        refused > 0 || refundsRefused > 0 || refunded < refundIds.length || rising.length > 0
          ? false
          : samples.length > settled * perMinute && judged
            ? rssFloors.every((f) => f <= 5)
            : undefined,
      notes:
        `${growth.join('; ')}; ` +
        `p99 ms, median of the first third of the minutes after minute ${settled} → of the last third: ` +
        trends
          .map((t) => `${t.label} ${t.trend ? `${t.trend.first} → ${t.trend.last}${t.trend.rising ? ' (**rising**)' : ''}` : 'too short to tell'}`)
          .join(', ') +
        `; every 10 s: ${ORDERS_PER_WINDOW} creations with their scan-code payment, held calls and notifications (${ORDERS_PER_WINDOW / 5}/s), ${UPLOADS_PER_WINDOW} uploads of 50 items, ` +
        `${REFUNDS_PER_WINDOW} orders paid in the sandbox and refunded (4.6, 4 at a time)` +
        (instances.length > 1 ? ', each window on one instance with its notifications sent to the other' : '') +
        `; ${held + refundIds.length} orders paid, ${refunded} of ${refundIds.length} refunded, ${last.callbacks} callbacks delivered` +
        (refused ? `; **${refused} notifications refused**` : '') +
        (refundsRefused ? `; **${refundsRefused} refunds refused**` : '') +
        heap,
    });
    await b.release();
  },
};

/** How many of these orders have `status` (read-only SQL). */
async function countWithStatus(b: Bench, ids: readonly string[], status: string): Promise<number> {
  if (ids.length === 0) return 0;
  let n = 0;
  // In slices: SQLite allows a limited number of parameters per statement.
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    const marks = part.map((_, k) => `$${k + 2}`).join(', ');
    const rows = await b.fleet.query<{ n: number | string }>(`select count(*) as n from prepay_orders where status = $1 and prepay_id in (${marks})`, [
      status,
      ...part,
    ]);
    n += Number(rows[0].n);
  }
  return n;
}

/** BENCH_HEAP_SNAPSHOTS: the retained JS heap's growth from after minute 1 to the end, by constructor (printed, the largest in the notes). */
function heapDiff(beforeFile: string, afterFile: string): string {
  const { perUnit, groups } = heapGrowth(readHeap(beforeFile), readHeap(afterFile), 1);
  console.log(`  retained JS heap growth after minute 1: ${round(perUnit / 2 ** 20, 2)} MB`);
  for (const g of groups.slice(0, 30))
    console.log(
      `    ${Math.round(g.bytes / 1024)
        .toString()
        .padStart(8)} KB  ${Math.round(g.count).toString().padStart(8)} ×  ${g.name}`,
    );
  const top = groups
    .slice(0, 5)
    .map((g) => `${g.name} ${round(g.bytes / 1024, 0)} KB`)
    .join(', ');
  return `; retained heap (snapshots) after minute 1 → end: ${round(perUnit / 2 ** 20, 2)} MB, largest: ${top}`;
}
