/**
 * Soak (`npm run bench -- soak`, `BENCH_SOAK`, default 10m): a steady mix for a long time, to see
 * whether memory stays flat and calls stay as fast. Every 10 s: orders created through the API
 * with their scan-code payment, a held `waitForFinish` call on each, their payments notified at a
 * steady rate (each wakes its held call and sends its callback to the receiver), chain uploads, and
 * refunds: further orders paid by the sandbox's payer (the sandbox notifies the payment), then
 * refunded with 4.6 under the parent merchant's login (the sandbox completes each refund and sends
 * its refund notification; a `refunded` callback follows).
 * The instance's RSS (from /proc) and JS heap (`nodejs_heap_size_used_bytes` of GET /metrics) are
 * sampled at the end of every 10 s; one row per minute, and the growth after the first minute.
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

const lowest = (part: Sample[], key: 'rssMb' | 'heapMb') => Math.min(...part.map((s) => s[key]));
const highest = (part: Sample[], key: 'rssMb' | 'heapMb') => Math.max(...part.map((s) => s[key]));

interface Sample {
  at: number;
  rssMb: number;
  heapMb: number;
  heapTotalMb: number;
  externalMb: number;
  anonMb: number;
  fileMb: number;
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
    const url = b.fleet.urls[0];
    const r = b.driver('receiver');
    const { url: receiverUrl } = await r.call<{ url: string }>('start', { creds: b.creds, mode: 'ok' });
    const merchant = b.driver('merchant');
    const shop = await merchant.call<string>('subMerchant', { url, creds: b.creds, parentId: b.demo.parentMerchantId, displayName: 'Bench soak' });
    await merchant.call('callbackUrl', { url, creds: b.creds, merchantId: shop, notifyCallbackUrl: receiverUrl });
    const holder = b.driver('holds');
    const notifier = b.driver('notify');
    const uploader = b.driver('merchant');
    const refunder = b.driver('merchant');
    const payer = b.driver('payer');
    /** Orders created, paid in the sandbox and refunded: the 4.6 latencies. */
    const refundRound = async (): Promise<{ ms: number[]; refused: number; ids: string[] }> => {
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
        notifier.call<NotifyAnswer>('send', { url, platform: b.fleet.platform, orders, rate: ORDERS_PER_WINDOW / 5 } satisfies NotifyArgs),
        uploader.call<Float64Array>('timedUpload', { url, creds: b.creds, tag: `soak${w}`, calls: UPLOADS_PER_WINDOW, items: 50 }),
        refundRound(),
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
      const heapNow = await heapMb(url);
      const parts = rssParts(b.fleet.instances[0].pid);
      samples.push({
        at: now() - started,
        rssMb: b.fleet.memory(0).rss / 2 ** 20,
        heapMb: heapNow.used,
        heapTotalMb: heapNow.total,
        externalMb: heapNow.external,
        anonMb: parts.anon,
        fileMb: parts.file,
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
    for (let m = 0; m * perMinute < samples.length; m++) {
      const part = samples.slice(m * perMinute, (m + 1) * perMinute);
      const last = part[part.length - 1];
      b.report({
        scenario: `soak minute ${m + 1}: RSS ${round(lowest(part, 'rssMb'), 0)}–${round(highest(part, 'rssMb'), 0)} MB, heap used ${round(lowest(part, 'heapMb'), 0)}–${round(highest(part, 'heapMb'), 0)} MB`,
        p99: p99(part.flatMap((s) => s.notify)),
        notes:
          `p99 ms: creation ${p99(part.flatMap((s) => s.create))}, notification ${p99(part.flatMap((s) => s.notify))}, ` +
          `held answer after its payment ${p99(part.flatMap((s) => s.held))}, upload of 50 items ${p99(part.flatMap((s) => s.upload))}, ` +
          `refund ${p99(part.flatMap((s) => s.refund))}; ` +
          `RSS per 10 s ${part.map((s) => round(s.rssMb, 0)).join(' ')} MB, heap used ${part.map((s) => round(s.heapMb, 0)).join(' ')} MB; ${last.callbacks} callbacks delivered so far`,
      });
    }
    // Growth after the first minute. Between two major collections V8 lets garbage pile up and its
    // heap grow (RSS with it, by tens of MB), then gives it back: one sample against another mostly
    // says where each fell in that cycle. So also each minute's lowest (what stays: a leak lifts
    // it) and highest (how far the cycle goes), minute 2 against the last minute; the target
    // applies to the lowest.
    const base = samples[Math.min(perMinute, samples.length - 1)];
    const last = samples[samples.length - 1];
    const minute2 = samples.length > perMinute ? samples.slice(perMinute, 2 * perMinute) : samples;
    const lastMinute = samples.slice(-perMinute);
    const pct = (from: number, to: number) => (to / from - 1) * 100;
    const change = (from: number, to: number) => `${round(from, 1)} → ${round(to, 1)} MB (${round(pct(from, to), 1)} %)`;
    const rssFloor = pct(lowest(minute2, 'rssMb'), lowest(lastMinute, 'rssMb'));
    b.report({
      scenario: `soak: ${round(total / 60_000, 1)} min of mixed steady load, memory growth after the first minute`,
      target: '≤ 5 % (lowest RSS)',
      met: refused > 0 || refundsRefused > 0 || refunded < refundIds.length ? false : samples.length > perMinute ? rssFloor <= 5 : undefined,
      notes:
        `minute 2 → last minute, lowest: RSS ${change(lowest(minute2, 'rssMb'), lowest(lastMinute, 'rssMb'))}, heap used ${change(lowest(minute2, 'heapMb'), lowest(lastMinute, 'heapMb'))}; ` +
        `highest: RSS ${change(highest(minute2, 'rssMb'), highest(lastMinute, 'rssMb'))}, heap used ${change(highest(minute2, 'heapMb'), highest(lastMinute, 'heapMb'))}; ` +
        `first sample after minute 1 → last: RSS ${change(base.rssMb, last.rssMb)}, heap used ${change(base.heapMb, last.heapMb)}, ` +
        `of which RssAnon ${change(base.anonMb, last.anonMb)}, RssFile ${change(base.fileMb, last.fileMb)}, V8 heap size ${change(base.heapTotalMb, last.heapTotalMb)}, external ${change(base.externalMb, last.externalMb)}; ` +
        `every 10 s: ${ORDERS_PER_WINDOW} creations with their scan-code payment, held calls and notifications (${ORDERS_PER_WINDOW / 5}/s), ${UPLOADS_PER_WINDOW} uploads of 50 items, ` +
        `${REFUNDS_PER_WINDOW} orders paid in the sandbox and refunded (4.6, 4 at a time); ` +
        `${held + refundIds.length} orders paid, ${refunded} of ${refundIds.length} refunded, ${last.callbacks} callbacks delivered` +
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
