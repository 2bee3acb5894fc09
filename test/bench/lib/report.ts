/**
 * The bench's one table per run: rendering (Markdown) and its place in docs/performance.md, where
 * the latest table of each configuration (SQLite; PostgreSQL with one or two instances) is kept
 * between markers and everything above the first marker (how to run the bench) is left alone.
 * Pure functions: the bench's unit test covers them.
 */

export interface Row {
  scenario: string;
  /** Throughput with its unit (`req/s`, `items/s`, `notifications/s`…). */
  rate?: { value: number; unit: string };
  /** Latencies, ms. */
  p50?: number;
  p99?: number;
  /** Server CPU time per request (all instances, all threads), µs. */
  cpuUs?: number;
  /** Throughput against the bare Express route measured around it. */
  ratio?: number;
  /** CPU per request of the bare Express route divided by this one's (1 = as cheap as bare Express). */
  cpuRatio?: number;
  target?: string;
  /** Whether the target was met; undefined when there is no target or it could not be judged. */
  met?: boolean;
  /** A target on the rate ratio: `met` is set from it once the baseline after the scenario is measured. */
  minRatio?: number;
  /** A target on the CPU: at most this many times the bare route's per request, judged as `minRatio` is (and with `met` if set). */
  maxCpuTimes?: number;
  notes?: string;
}

export interface RunInfo {
  /** ISO date and time the run started. */
  date: string;
  machine: string;
  node: string;
  backend: string;
  instances: number;
  /** Seconds per load run. */
  duration: number;
  /** Seconds the whole run took. */
  elapsed: number;
  filter?: string;
  /** What the service was started with that matters to the figures. */
  service: string;
  /** Load average at the start and at the end (the machine may be shared). */
  loadAverage: string;
}

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Milliseconds: one decimal below 100, whole numbers above. */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  return Math.abs(ms) < 100 ? ms.toFixed(1) : int.format(ms);
}

export function formatNumber(n: number | undefined, digits = 0): string {
  if (n === undefined || !Number.isFinite(n)) return '';
  return digits === 0 ? int.format(n) : n.toFixed(digits);
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderTable(info: RunInfo, rows: readonly Row[]): string {
  const title = `${info.backend}, ${info.instances} instance${info.instances > 1 ? 's' : ''}`;
  const lines = [
    `### ${title}${info.filter ? ` (subset: "${info.filter}")` : ''}`,
    '',
    `Run ${info.date}, ${formatNumber(info.elapsed)} s in all, ${info.duration} s per load run. ` +
      `Machine: ${info.machine}; Node ${info.node}; load average ${info.loadAverage}. ` +
      `Service: ${info.service}.`,
    '',
    '| scenario | rate | p50 ms | p99 ms | server CPU µs/req | ratio to bare (rate / CPU) | target | met | notes |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const rate = r.rate ? `${formatNumber(r.rate.value)} ${r.rate.unit}` : '';
    const ratio = r.ratio === undefined && r.cpuRatio === undefined ? '' : `${formatNumber(r.ratio, 2) || '–'} / ${formatNumber(r.cpuRatio, 2) || '–'}`;
    const met = r.met === undefined ? '' : r.met ? 'yes' : '**no**';
    lines.push(
      `| ${[cell(r.scenario), rate, formatMs(r.p50), formatMs(r.p99), formatNumber(r.cpuUs), ratio, cell(r.target ?? ''), met, cell(r.notes ?? '')].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

const ORDER = ['sqlite-1', 'postgresql-1', 'postgresql-2'];
const begin = (key: string) => `<!-- bench:${key} -->`;
const end = (key: string) => `<!-- /bench:${key} -->`;
const BLOCK = /<!-- bench:([a-z0-9-]+) -->\n[\s\S]*?<!-- \/bench:\1 -->\n?/g;

/**
 * Puts `table` in place of the previous table of configuration `key` and returns the new file.
 * The text before the first table (`intro` when the file is new) is kept as it is.
 */
export function updateDocument(existing: string | undefined, key: string, table: string, intro: string): string {
  const text = existing ?? intro;
  const blocks = new Map<string, string>();
  for (const m of text.matchAll(BLOCK)) blocks.set(m[1], m[0].replace(/\n?$/, '\n'));
  blocks.set(key, `${begin(key)}\n${table.trim()}\n${end(key)}\n`);
  const first = text.search(/<!-- bench:[a-z0-9-]+ -->/);
  const head = (first < 0 ? text : text.slice(0, first)).replace(/\s*$/, '\n\n');
  const keys = [...blocks.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return head + keys.map((k) => blocks.get(k)).join('\n');
}

function rank(key: string): number {
  const i = ORDER.indexOf(key);
  return i < 0 ? ORDER.length : i;
}
