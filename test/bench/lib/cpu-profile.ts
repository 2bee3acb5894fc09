/**
 * A V8 CPU profile (`BENCH_CPU_PROF`, `node --cpu-prof`) summarised: where the service's main thread
 * spent a window of the run, by theme (statements, validation, logging, HTTP in and out…) and
 * by function. A sample counts for the innermost frame that names a theme, so the kit's code calling
 * zod counts as validation and its own lines as the kit's. Built-ins such as `JSON.parse` have no
 * frame of their own in a V8 profile: their time is their caller's. Frames of the bundled service
 * (`server/dist/*.js`) are read through its source maps back to `server/src/…`.
 *
 * The window: from the first to the last sample whose stack has a frame matching `marker` (the
 * notifications' route and the callbacks' delivery for the notifications scenario), or all of it.
 * Sampled time is wall time of the main thread while it was not idle: a system call that blocks
 * (an fsync at a checkpoint) counts, as does time the thread was preempted on a loaded machine.
 */
import type { SourceMap } from 'node:module';

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A frame as summarised: its function, its source (mapped back when a map was given) and its theme. */
export interface Frame {
  name: string;
  source: string;
  line: number;
  theme: string | undefined;
}

export interface Summary {
  /** The window, ms from the profile's start. */
  from: number;
  to: number;
  /** Sampled ms in the window, and of those not idle. */
  windowMs: number;
  busyMs: number;
  /** Busy ms by theme, by function (self) and by the kit's innermost frame (self time of the code it called included). */
  themes: Map<string, number>;
  functions: Map<string, number>;
  kitCallers: Map<string, number>;
}

/**
 * The themes, in the order they are tried on each frame (innermost first): a frame's source (a
 * package under node_modules, a Node module, a file of the kit) or its function's name.
 */
const THEMES: Array<[theme: string, test: (source: string, name: string) => boolean]> = [
  ['garbage collection', (s, n) => n === '(garbage collector)'],
  ['validation (zod)', (s) => /node_modules\/zod\//.test(s)],
  ['logging (pino)', (s) => /node_modules\/(pino|pino-std-serializers|sonic-boom|thread-stream)\//.test(s)],
  ['metrics (prom-client)', (s) => /node_modules\/prom-client\//.test(s) || /^server\/src\/metrics\//.test(s)],
  ['statements (driver, Kysely, db/)', (s) => /node_modules\/(better-sqlite3|pg|pg-protocol|pg-pool|kysely)\//.test(s) || /^server\/src\/db\//.test(s)],
  ['job claim and settlement (jobs/)', (s) => /^server\/src\/jobs\//.test(s)],
  ['crypto', (s) => s.startsWith('node:internal/crypto')],
  [
    'HTTP in (server, Express, body, request context)',
    (s) =>
      /node_modules\/(express|router|body-parser|raw-body|path-to-regexp|type-is|content-type|media-typer|iconv-lite|on-finished|finalhandler)\//.test(s) ||
      /^node:_http_(server|incoming|common)/.test(s) ||
      /^server\/src\/http\/(request-context|server|api-routes|api-group)\.ts/.test(s),
  ],
  ['HTTP out (the callback POST)', (s) => /^node:_http_(client|agent|outgoing)/.test(s) || /^server\/src\/http\/post-client\.ts/.test(s)],
  ['sockets and streams', (s) => /^node:(net|internal\/stream_base_commons|internal\/streams|stream)/.test(s)],
  ['event loop (promises, ticks, timers)', (s, n) => /^node:internal\/(process\/task_queues|timers)/.test(s) || n === 'runMicrotasks'],
  ['the kit (other)', (s) => /^(server|shared|sandbox)\/src\//.test(s)],
  ['(program)', (s, n) => n === '(program)'],
];

/** A frame's source: `server/src/…` for the kit's bundled code (through `sourceMapOf`), else its URL. */
export function frameOf(
  callFrame: CpuProfile['nodes'][number]['callFrame'],
  sourceMapOf: (url: string) => { map: SourceMap; resolve(source: string): string } | undefined,
): Frame {
  let source = callFrame.url;
  let line = callFrame.lineNumber + 1;
  const mapped = callFrame.url ? sourceMapOf(callFrame.url) : undefined;
  if (mapped) {
    const entry = mapped.map.findEntry(callFrame.lineNumber, callFrame.columnNumber) as { originalSource?: string; originalLine?: number };
    if (entry.originalSource) {
      source = mapped.resolve(entry.originalSource);
      line = (entry.originalLine ?? 0) + 1;
    }
  }
  source = source.replace(/^file:\/\/.*?\/((server|shared|sandbox)\/src\/)/, '$1');
  const name = callFrame.functionName || '(anonymous)';
  return { name, source, line, theme: THEMES.find(([, test]) => test(source, name))?.[0] };
}

export function summarise(profile: CpuProfile, frame: (node: CpuProfile['nodes'][number]) => Frame, marker?: RegExp): Summary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const frames = new Map<number, Frame>();
  const frameAt = (id: number) => {
    let f = frames.get(id);
    if (!f) frames.set(id, (f = frame(byId.get(id)!)));
    return f;
  };
  const stacks = new Map<number, Frame[]>();
  const stackOf = (id: number) => {
    let s = stacks.get(id);
    if (!s) {
      s = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) s.push(frameAt(at));
      stacks.set(id, s);
    }
    return s;
  };
  // Sample times (ms from the start) and the time each stands for (until the next).
  const at: number[] = [];
  let t = 0;
  for (const d of profile.timeDeltas) at.push((t += d) / 1000);
  const span = (i: number) => (i + 1 < at.length ? at[i + 1] - at[i] : 0);
  let from = 0;
  let to = (profile.endTime - profile.startTime) / 1000;
  if (marker) {
    const hits = profile.samples.flatMap((id, i) => (stackOf(id).some((f) => marker.test(f.source) || marker.test(f.name)) ? [at[i]] : []));
    if (hits.length) [from, to] = [hits[0], hits[hits.length - 1]];
  }
  const s: Summary = { from, to, windowMs: 0, busyMs: 0, themes: new Map(), functions: new Map(), kitCallers: new Map() };
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  profile.samples.forEach((id, i) => {
    if (at[i] < from || at[i] > to) return;
    const ms = span(i);
    s.windowMs += ms;
    const stack = stackOf(id);
    if (stack[0].name === '(idle)') return;
    s.busyMs += ms;
    add(s.themes, stack.find((f) => f.theme)?.theme ?? 'other', ms);
    add(s.functions, `${stack[0].name} ${stack[0].source}:${stack[0].line}`, ms);
    const kit = stack.find((f) => /^(server|shared|sandbox)\/src\//.test(f.source));
    add(s.kitCallers, kit ? `${kit.name} ${kit.source}:${kit.line}` : '(no frame of the kit)', ms);
  });
  return s;
}
