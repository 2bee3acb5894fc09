/**
 * JSON lines on stdout; when stdout is a terminal (a person running `npm start`), the same lines
 * made readable by pino-pretty: a log collector always gets JSON. Secrets never reach it: request logs carry the path, never the query or body.
 *
 * Lines go through a bounded buffer in front of stdout. When whoever reads our stdout stops reading
 * (a stalled log collector), the buffer fills to `LOG_BUFFER_BYTES` and later lines are dropped and
 * counted, instead of memory growing without bound; the count is reported in a later line once the
 * reader catches up. Nothing ever blocks on stdout: not a request, and not the exit, which waits for
 * the buffer at most a bounded time (`flushLogs`).
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { isColorSupported, prettyFactory } from 'pino-pretty';

export const DEFAULT_LOG_BUFFER_BYTES = 8 * 1024 * 1024;
/** Lines are gathered and written in one piece per event-loop turn, or sooner past this size. */
const BATCH_BYTES = 64 * 1024;

/** The writable end the sink feeds: `process.stdout` in the service; anything stream-like in tests. */
export interface LogTarget {
  write(chunk: string, cb?: (err?: Error | null) => void): boolean;
  readonly writableLength: number;
  /** A terminal: a person reads the lines (`process.stdout.isTTY`). */
  readonly isTTY?: boolean;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/** One error listener per stream, however many loggers write to it. */
const sinksOf = new WeakMap<LogTarget, Set<BoundedLogSink>>();

export class BoundedLogSink implements DestinationStream {
  private batch: string[] = [];
  private batchBytes = 0;
  private scheduled = false;
  broken = false;
  /** Lines dropped since the last report, and since the start. */
  private unreported = 0;
  droppedTotal = 0;

  constructor(
    private readonly target: LogTarget,
    readonly limitBytes: number,
  ) {
    // A closed stdout (EPIPE) must not crash the service: logging just stops.
    let sinks = sinksOf.get(target);
    if (!sinks) {
      const set = new Set<BoundedLogSink>();
      sinksOf.set(target, (sinks = set));
      target.on('error', () => {
        for (const s of set) s.broken = true;
      });
    }
    sinks.add(this);
  }

  /** Bytes held: gathered here and accepted by the stream but not yet taken by the reader. */
  get bufferedBytes(): number {
    return this.batchBytes + this.target.writableLength;
  }

  write(line: string): void {
    if (this.broken) return;
    if (this.bufferedBytes + line.length > this.limitBytes) {
      this.unreported++;
      this.droppedTotal++;
      return;
    }
    this.batch.push(line);
    this.batchBytes += line.length;
    if (this.batchBytes >= BATCH_BYTES) this.writeBatch();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.writeBatch());
    }
  }

  /** Returns and resets the number of lines dropped since the last call, once there is room to say so. */
  takeDropped(): number {
    if (this.unreported === 0 || this.bufferedBytes > this.limitBytes / 2) return 0;
    const n = this.unreported;
    this.unreported = 0;
    return n;
  }

  /** Hands what was gathered to the stream now (never waits for the reader). */
  writeBatch(): void {
    this.scheduled = false;
    if (this.batch.length === 0 || this.broken) return;
    const chunk = this.batch.length === 1 ? this.batch[0] : this.batch.join('');
    this.batch = [];
    this.batchBytes = 0;
    this.target.write(chunk);
  }

  /** Waits until everything written so far has been taken by the reader, or `timeoutMs` passed; never longer. */
  async flush(timeoutMs: number): Promise<boolean> {
    this.writeBatch();
    const deadline = Date.now() + timeoutMs;
    while (!this.broken && this.target.writableLength > 0) {
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return true;
  }
}

/** At exit, gathered lines still go to the stream: written at once to a file or terminal, dropped by a pipe nobody reads. */
const liveSinks = new Set<BoundedLogSink>();
let exitHook = false;
function flushAtExit(sink: BoundedLogSink): void {
  liveSinks.add(sink);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const s of liveSinks) s.writeBatch();
  });
}

const SINK = Symbol('kit.logSink');
type WithSink = Logger & { [SINK]?: BoundedLogSink };

export interface LoggerOptions {
  /** Most bytes of log lines held while stdout is not being read (`LOG_BUFFER_BYTES`). */
  bufferBytes?: number;
  /** Where the lines go (default `process.stdout`). */
  target?: LogTarget;
  /** Readable lines instead of JSON (default: when the target is a terminal). */
  pretty?: boolean;
}

/** Each JSON line made readable (time, level, message, then the fields), before the bounded sink. */
function prettyInto(sink: BoundedLogSink, colorize: boolean): DestinationStream {
  const format = prettyFactory({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'svc', singleLine: true });
  return { write: (line: string) => sink.write(format(line)) };
}

export function createLogger(level: string, opts: LoggerOptions = {}): Logger {
  const options = {
    level,
    base: { svc: 'kit' },
    // Top level and one level down: `log.info({ loginToken })` and `log.info({ body: { pw } })` alike;
    // a merchant's Alipay authorization is write-only like a password, in 4.7's `parameters` too.
    redact: {
      paths: [
        'pw',
        'appSecret',
        'loginToken',
        'secret',
        'appAuthToken',
        '*.pw',
        '*.appSecret',
        '*.loginToken',
        '*.secret',
        '*.appAuthToken',
        '*.parameters.appAuthToken',
        'req.headers.authorization',
      ],
      censor: '[redacted]',
    },
  };
  if (level === 'silent') return pino(options);
  const target = opts.target ?? process.stdout;
  const sink = new BoundedLogSink(target, opts.bufferBytes ?? DEFAULT_LOG_BUFFER_BYTES);
  const pretty = opts.pretty ?? target.isTTY === true;
  const log: WithSink = pino(options, pretty ? prettyInto(sink, target.isTTY === true && isColorSupported) : sink);
  log[SINK] = sink;
  flushAtExit(sink);
  // Says how many lines a stalled reader cost, once it reads again.
  const report = setInterval(() => {
    const dropped = sink.takeDropped();
    if (dropped) log.warn({ dropped, droppedTotal: sink.droppedTotal }, 'log lines dropped while stdout was not being read');
  }, 5_000);
  report.unref();
  return log;
}

/** The bounded sink behind a logger made by `createLogger` (none for a silent one). */
export function logSinkOf(log: Logger): BoundedLogSink | undefined {
  return (log as WithSink)[SINK];
}

/** Lets the last lines reach the reader before the process exits, waiting at most `timeoutMs`. */
export async function flushLogs(log: Logger, timeoutMs: number): Promise<boolean> {
  return (await logSinkOf(log)?.flush(timeoutMs)) ?? true;
}
