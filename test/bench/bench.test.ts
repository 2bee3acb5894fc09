/** The bench's pure parts: /proc parsing, statistics, options, signing clock, heap grouping and the table it writes. */
import { parseQueryString, verify } from '@kit/shared';
import { countersPer, parseKeyNumbers, parseStatTicks, parseStatTimes, parseStatus } from './lib/proc';
import { firstSent } from './lib/payments';
import { abba, MAX_EXTRA_POINTS, meanCounters, secondInstanceVerdict } from './scenarios/second-instance';
import { p99Trend, settlingMinutes, soakMs } from './scenarios/soak';
import { latency, merged, percentile } from './lib/stats';
import { configurationKey, OptionsError, parseOptions } from './lib/options';
import { formatMs, renderTable, updateDocument, type RunInfo } from './lib/report';
import { requestBuilder, SignatureClock } from './lib/requests';
import { groupHeap, heapGrowth } from './lib/heap-diff';
import { serviceArgs } from './lib/fleet';
import { againstBare } from './lib/bench';
import { choose } from './scenarios';

describe('/proc parsing', () => {
  it('reads resident and peak memory from a status file', () => {
    const text = 'Name:\tnode\nVmPeak:\t 1200000 kB\nVmHWM:\t  300000 kB\nVmRSS:\t  250000 kB\nRssAnon:\t 200000 kB\n';
    expect(parseStatus(text)).toEqual({ rss: 250000 * 1024, peak: 300000 * 1024 });
    expect(() => parseStatus('Name:\tnode\n')).toThrow(/VmRSS/);
  });

  it('adds user and system ticks of a stat line, whatever the command name holds', () => {
    const line = '4242 (node (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 12 0 3000 100000 2000';
    expect(parseStatTicks(line)).toBe(1234 + 567);
    expect(() => parseStatTicks('4242 (node) S 1')).toThrow(/too short/);
    expect(parseStatTimes(line)).toEqual({ user: 1234, system: 567 });
  });

  it('reads system calls and context switches, and takes counters per request over processes', () => {
    expect(parseKeyNumbers('rchar: 6976\nsyscr: 10\nsyscw: 4\n', ['syscr', 'syscw'])).toEqual([10, 4]);
    expect(
      parseKeyNumbers('voluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n', ['voluntary_ctxt_switches', 'nonvoluntary_ctxt_switches']),
    ).toEqual([12, 3]);
    expect(() => parseKeyNumbers('rchar: 1\n', ['syscr'])).toThrow(/syscr/);
    const at = (userMs: number, syscalls: number) => ({ userMs, systemMs: 1, syscalls, waits: 0, preemptions: 2 });
    expect(countersPer([at(10, 100), at(20, 0)], [at(30, 140), at(40, 20)], 20)).toEqual({ userMs: 2, systemMs: 0, syscalls: 3, waits: 0, preemptions: 0 });
  });
});

describe('what a second instance costs', () => {
  it('is the added CPU per request beyond what a second bare process adds, within the target', () => {
    const bare = { one: 100, two: 104 };
    const within = secondInstanceVerdict({ one: 200, two: 220 }, bare);
    expect([within.kit, within.bare, within.points]).toEqual([expect.closeTo(10), expect.closeTo(4), expect.closeTo(6)]);
    expect(within.met).toBe(true);
    expect(secondInstanceVerdict({ one: 200, two: 230 }, bare).met).toBe(false);
    expect(secondInstanceVerdict({ one: 200, two: 200 + 2 * (4 + MAX_EXTRA_POINTS) }, bare).points).toBeCloseTo(MAX_EXTRA_POINTS);
  });

  it('measures one, two, two, one, so that a drift weighs on both sides alike', async () => {
    const order: string[] = [];
    const runs = await abba(
      async () => order.push('one'),
      async () => order.push('two'),
    );
    expect(order).toEqual(['one', 'two', 'two', 'one']);
    expect(runs).toEqual({ one: [1, 4], two: [2, 3] });
    const c = (userMs: number) => ({ userMs, systemMs: 0.02, syscalls: 4, waits: 0.1, preemptions: 1 });
    expect(meanCounters([c(0.1), c(0.3)])).toEqual({ ...c(0.2), userMs: expect.closeTo(0.2) });
  });
});

describe('the soak', () => {
  it('reads its length, and leaves out three minutes of a long run before judging it', () => {
    expect([soakMs('30m'), soakMs('90s'), soakMs('2h')]).toEqual([1_800_000, 90_000, 7_200_000]);
    expect(() => soakMs('half an hour')).toThrow(/BENCH_SOAK/);
    expect([settlingMinutes(30), settlingMinutes(5), settlingMinutes(4)]).toEqual([3, 3, 1]);
  });

  it('tells a rising p99 from a noisy flat one', () => {
    expect(p99Trend([20, 22])).toBeUndefined();
    expect(p99Trend([20, 45, 21, 22, 19, 23])).toEqual({ first: 32.5, last: 21, rising: false });
    expect(p99Trend([20, 22, 30, 35, 41, 44])).toMatchObject({ first: 21, last: 42.5, rising: true });
    // A p99 of a few ms doubling is not a trend.
    expect(p99Trend([2, 2, 3, 3, 4, 4])?.rising).toBe(false);
  });
});

describe('notification runs', () => {
  it('are timed from the first notification sent, not from the moment the drivers were asked', () => {
    expect(firstSent([{ sent: Float64Array.from([1005, 1001, 1009]) }, { sent: Float64Array.from([1003]) }])).toBe(1001);
  });
});

describe('statistics', () => {
  it('takes nearest-rank percentiles over the samples of several load processes', () => {
    const all = merged([Float64Array.from([5, 1, 3]), [4, 2]]);
    expect(Array.from(all)).toEqual([1, 2, 3, 4, 5]);
    expect(percentile(all, 50)).toBe(3);
    expect(percentile(all, 99)).toBe(5);
    expect(latency([[10, 20], [30]])).toEqual({ p50: 20, p99: 30, count: 3 });
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('options', () => {
  it('has defaults and takes the filter from the command line', () => {
    expect(parseOptions(['--', 'held'], {})).toMatchObject({
      duration: 10,
      instances: 1,
      holds: 10_000,
      filter: 'held',
      databaseUrl: undefined,
      heapSnapshots: false,
      protocol: 'v3',
    });
    expect(parseOptions([], { BENCH_PROTOCOL: 'v2' }).protocol).toBe('v2');
    expect(parseOptions([], { BENCH_DURATION: '2.5', BENCH_HOLDS: '400' })).toMatchObject({ duration: 2.5, holds: 400, filter: undefined });
  });

  it('refuses two instances on SQLite, and settings that are not numbers', () => {
    expect(() => parseOptions([], { BENCH_INSTANCES: '2' })).toThrow(OptionsError);
    expect(() => parseOptions([], { BENCH_INSTANCES: '2' })).toThrow(/BENCH_DATABASE_URL/);
    expect(() => parseOptions([], { BENCH_DURATION: 'ten' })).toThrow(/BENCH_DURATION/);
    expect(() => parseOptions([], { BENCH_DATABASE_URL: 'mysql://x' })).toThrow(/postgres/);
    expect(() => parseOptions([], { BENCH_PROTOCOL: 'v1' })).toThrow(/BENCH_PROTOCOL/);
    const pg = parseOptions([], { BENCH_DATABASE_URL: 'postgres://u@h/db', BENCH_INSTANCES: '2' });
    expect(configurationKey(pg)).toBe('postgresql-2');
    expect(configurationKey(parseOptions([], {}))).toBe('sqlite-1');
  });

  it('chooses scenarios by id or by a piece of their name', () => {
    expect(choose(undefined).length).toBeGreaterThan(5);
    expect(choose('holds').map((s) => s.id)).toEqual(['holds']);
    expect(choose('Signed').map((s) => s.id)).toEqual(['create', 'read']);
    expect(choose('no such scenario')).toEqual([]);
  });
});

describe('signed load requests', () => {
  it('never reuse a signature timestamp, stay inside the window and interleave between load processes', () => {
    const now = 1_700_000_000_000;
    const a = new SignatureClock(now - 300_000, 2);
    const b = new SignatureClock(now - 300_000 + 1, 2);
    const ts = [a.next(now), b.next(now), a.next(now), b.next(now)];
    expect(new Set(ts).size).toBe(4);
    expect(ts.every((t) => t >= now - 250_000)).toBe(true);
    expect(ts.map((t) => t % 2)).toEqual([ts[0] % 2, 1 - (ts[0] % 2), ts[0] % 2, 1 - (ts[0] % 2)]);
    expect(a.next(now) - ts[2]).toBe(2);
  });

  it('are signed so that the shared verifier accepts them', () => {
    const creds = { appId: 'app_bench', appSecret: 'bench-secret' };
    const build = requestBuilder({ kind: 'create', subMerchantId: 'SM1' }, creds, new SignatureClock(Date.now(), 1));
    const first = build(0);
    const second = build(1);
    expect(first.path).not.toBe(second.path);
    const [path, query] = first.path.split('?');
    const result = verify({ method: 'POST', path, query: parseQueryString(query), body: Buffer.from(first.body!) }, () => creds.appSecret);
    expect(result).toMatchObject({ ok: true, appId: 'app_bench' });
  });
});

describe('heap snapshots', () => {
  const snapshot = (nodes: Array<[type: number, name: number, size: number]>) => ({
    snapshot: { meta: { node_fields: ['type', 'name', 'id', 'self_size'], node_types: [['hidden', 'object', 'string', 'closure'] as string[]] as [string[]] } },
    nodes: nodes.flatMap(([t, n, s], i) => [t, n, i, s]),
    strings: ['Socket', 'x', 'Waiter', 'onClose'],
  });

  it('groups by kind and constructor and divides the growth per unit', () => {
    const before = groupHeap(
      snapshot([
        [1, 0, 100],
        [2, 1, 20],
      ]),
    );
    const after = groupHeap(
      snapshot([
        [1, 0, 100],
        [1, 0, 100],
        [1, 0, 100],
        [2, 1, 20],
        [2, 1, 40],
        [1, 2, 60],
        [3, 3, 40],
      ]),
    );
    const growth = heapGrowth(before, after, 2);
    expect(growth.perUnit).toBe((200 + 40 + 60 + 40) / 2);
    expect(growth.groups[0]).toEqual({ name: 'Socket', count: 1, bytes: 100 });
    expect(growth.groups.map((g) => g.name)).toEqual(['Socket', 'Waiter', '(string)', '(closure) onClose']);
  });
});

describe('ratios to the bare route', () => {
  const bare = { rate: 5000, cpuUs: 200 };

  it('compare the rate of requests only, and the CPU of requests and of notifications', () => {
    const rows = [
      { scenario: 'reads', rate: { value: 2500, unit: 'req/s' }, cpuUs: 400, minRatio: 0.4 },
      { scenario: 'notifications', rate: { value: 1000, unit: 'notifications/s' }, cpuUs: 800 },
      { scenario: 'uploads', rate: { value: 100, unit: 'items/s' }, cpuUs: 900 },
    ];
    againstBare(rows, bare);
    expect(rows.map((r) => [r.scenario, 'ratio' in r ? r.ratio : undefined, 'cpuRatio' in r ? r.cpuRatio : undefined])).toEqual([
      ['reads', 0.5, 0.5],
      ['notifications', undefined, 0.25],
      ['uploads', undefined, undefined],
    ]);
    expect(rows[0]).toMatchObject({ met: true });
  });

  it('judge a CPU target together with what the scenario judged itself', () => {
    const row = (cpuUs: number, met?: boolean) => ({ scenario: 'n', rate: { value: 1, unit: 'notifications/s' }, cpuUs, maxCpuTimes: 3, met });
    const rows = [row(600), row(601), row(500, false), row(500, true)];
    againstBare(rows, bare);
    expect(rows.map((r) => r.met)).toEqual([true, false, false, true]);
  });
});

describe('the table', () => {
  const info: RunInfo = {
    date: '2026-01-02T03:04:05Z',
    machine: '2 cores (Test CPU), 4 GB memory',
    node: 'v20.0.0',
    backend: 'SQLite',
    instances: 1,
    duration: 3,
    elapsed: 61.2,
    service: 'LOG_LEVEL=warn',
    loadAverage: '0.50 at the start, 0.70 at the end',
  };

  it('renders one row per scenario with rates, latencies, CPU and ratios', () => {
    const table = renderTable(info, [
      { scenario: 'bare', rate: { value: 12345.6, unit: 'req/s' }, p50: 3.04, p99: 120.4, cpuUs: 80, ratio: 1, cpuRatio: 1 },
      { scenario: 'held | calls', p99: 8.25, target: '≤ 250 MB', met: false, notes: 'two\nlines' },
    ]);
    expect(table).toContain('### SQLite, 1 instance\n');
    expect(table).toContain('| bare | 12,346 req/s | 3.0 | 120 | 80 | 1.00 / 1.00 |  |  |  |');
    expect(table).toContain('| held \\| calls |  |  | 8.3 |  |  | ≤ 250 MB | **no** | two lines |');
    expect(table).toContain('Run 2026-01-02T03:04:05Z, 61 s in all, 3 s per load run.');
    expect(formatMs(undefined)).toBe('');
  });

  it('replaces only the table of its configuration and keeps the text above the tables', () => {
    const intro = '# Performance\n\nHow to run the bench: …\n';
    const first = updateDocument(undefined, 'sqlite-1', '### SQLite run 1', intro);
    expect(first).toBe(`${intro}\n<!-- bench:sqlite-1 -->\n### SQLite run 1\n<!-- /bench:sqlite-1 -->\n`);
    const edited = first.replace('How to run the bench: …', 'How to run the bench: edited by hand');
    const second = updateDocument(edited, 'postgresql-2', '### PG run', intro);
    const third = updateDocument(second, 'sqlite-1', '### SQLite run 2', intro);
    expect(third).toContain('edited by hand');
    expect(third).not.toContain('run 1');
    expect(third.indexOf('### SQLite run 2')).toBeLessThan(third.indexOf('### PG run'));
    expect(third.match(/<!-- bench:/g)).toHaveLength(2);
    expect(updateDocument(third, 'sqlite-1', '### SQLite run 2', intro)).toBe(third);
  });
});

describe('the service command', () => {
  it("is package.json's server script, run without a shell", () => {
    expect(serviceArgs()).toEqual(['--heap-growing-percent=50', 'server/run.mjs']);
  });
});
