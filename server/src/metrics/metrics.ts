/**
 * What the service measures, in the Prometheus model (prom-client): one registry per service
 * instance, served at `GET /metrics`. Every metric is declared here with its help text; the code
 * that observes something calls one typed method, so label names and values stay few and fixed.
 *
 * Values that need a database count (outbox depth, chain queue) are read when scraped, at most
 * once per `COUNT_MAX_AGE_MS` and never for longer than `COUNT_TIMEOUT_MS`: a scraper cannot turn
 * into a query load, and a slow database answers with the last value instead of a hung scrape.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RequestMetrics } from './request-metrics';

export const COUNT_MAX_AGE_MS = 5_000;
export const COUNT_TIMEOUT_MS = 1_000;

/** Outcome of one callback delivery attempt (section 6). */
export type CallbackOutcome = 'delivered' | 'refused' | 'timeout' | 'network_error' | 'gave_up';
/** Which convergence path ran (docs/payments.md): order query on schedule, close at expiry, refund resumption. */
export type ReconciliationKind = 'payment_query' | 'expiry_close' | 'refund_resume' | 'profit_sharing_follow';
/** What it found or did. */
export type ReconciliationOutcome = 'paid' | 'unpaid' | 'closed' | 'refunded' | 'resent' | 'pending' | 'finished' | 'failed';

type Count = () => number | Promise<number>;

/** A number read when scraped, cached for `maxAgeMs`; the last good value stands while a read is slow or fails. */
class CachedCount {
  private value = 0;
  private at = 0;
  private inFlight?: Promise<void>;
  read?: Count;

  constructor(private readonly maxAgeMs: number) {}

  async get(): Promise<number | undefined> {
    if (!this.read) return undefined;
    if (Date.now() - this.at >= this.maxAgeMs) {
      this.inFlight ??= (async () => {
        try {
          this.value = await this.read!();
          this.at = Date.now();
        } catch {
          // Keep the last value; the next scrape tries again.
        } finally {
          this.inFlight = undefined;
        }
      })();
      const inFlight = this.inFlight;
      await Promise.race([inFlight, new Promise((r) => setTimeout(r, COUNT_TIMEOUT_MS).unref())]);
    }
    return this.value;
  }
}

/** Node's process metrics (CPU, memory, event-loop lag, GC): one set per process, however many instances a test starts. */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class Metrics {
  readonly registry = new Registry();

  private readonly requests = new RequestMetrics(
    this.registry,
    {
      counter: 'kit_http_requests_total',
      counterHelp: 'HTTP requests answered, by method, route (the route pattern, not the URL) and status.',
      histogram: 'kit_http_request_duration_seconds',
      histogramHelp: 'Time from the request to the end of its answer, by method, route and status (held waitForFinish calls included).',
    },
    SECONDS_BUCKETS,
  );

  private readonly callbackAttempts = new Counter({
    name: 'kit_callback_attempts_total',
    help: 'Merchant callback delivery attempts (section 6), by outcome: delivered (2xx and body OK), refused (any other answer), timeout, network_error, gave_up (last retry used).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly outbox: CachedCount;
  private readonly reconciliations = new Counter({
    name: 'kit_payment_reconciliations_total',
    help: 'Money-path convergence runs (order queries, closes at expiry, refund resumptions, profit-sharing follow-ups) by kind and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly chainQueue: CachedCount;
  private readonly sealDuration = new Histogram({
    name: 'kit_chain_seal_duration_seconds',
    help: 'Time to write one chain block (claim, points rules, Merkle root, signature, commit).',
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly itemWait = new Histogram({
    name: 'kit_chain_item_seal_latency_seconds',
    help: 'Time from accepting a chain item (4.9, 4.10, 4.14) to the block that confirms it.',
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  private readonly sealedItems = new Counter({
    name: 'kit_chain_items_sealed_total',
    help: 'Chain items written into blocks, by result (confirmed, or failed by the points rules).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  /** Sources read when scraped; set by the runtime once the parts exist. */
  private heldCalls?: () => number;
  private logStats?: () => { dropped: number; bufferedBytes: number };

  /** `countMaxAgeMs`: how long a database count is reused (COUNT_MAX_AGE_MS). */
  constructor(opts: { countMaxAgeMs?: number } = {}) {
    this.outbox = new CachedCount(opts.countMaxAgeMs ?? COUNT_MAX_AGE_MS);
    this.chainQueue = new CachedCount(opts.countMaxAgeMs ?? COUNT_MAX_AGE_MS);
    // prom-client calls `collect` with the gauge as `this`; these read the sources set later.
    const held = () => this.heldCalls?.() ?? 0;
    const dropped = () => this.logStats?.().dropped ?? 0;
    const buffered = () => this.logStats?.().bufferedBytes ?? 0;
    const { outbox, chainQueue } = this;
    new Gauge({
      name: 'kit_wait_for_finish_held',
      help: "Detail calls (4.2 waitForFinish=1, and the front ends' waits) held open on this instance right now.",
      registers: [this.registry],
      collect() {
        this.set(held());
      },
    });
    new Gauge({
      name: 'kit_callback_outbox_depth',
      help: 'Merchant callbacks not yet delivered (waiting for their first attempt or a retry).',
      registers: [this.registry],
      async collect() {
        const v = await outbox.get();
        if (v !== undefined) this.set(v);
      },
    });
    new Gauge({
      name: 'kit_chain_queue_depth',
      help: 'Chain items accepted and waiting for a block.',
      registers: [this.registry],
      async collect() {
        const v = await chainQueue.get();
        if (v !== undefined) this.set(v);
      },
    });
    new Gauge({
      name: 'kit_log_lines_dropped',
      help: 'Log lines dropped since start because stdout was not read fast enough (LOG_BUFFER_BYTES was full).',
      registers: [this.registry],
      collect() {
        this.set(dropped());
      },
    });
    new Gauge({
      name: 'kit_log_buffer_bytes',
      help: 'Bytes of log lines waiting for the stdout reader (at most LOG_BUFFER_BYTES).',
      registers: [this.registry],
      collect() {
        this.set(buffered());
      },
    });
  }

  // ---- what the HTTP layer calls ----------------------------------------------------------

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe(method, route, status, seconds);
  }

  // ---- what the callback and reconciliation code calls --------------------------------------

  /** One callback delivery attempt ended. */
  callbackAttempt(outcome: CallbackOutcome): void {
    this.callbackAttempts.inc({ outcome });
  }

  /** How to count undelivered callbacks (a database count; read when scraped, cached). */
  countOutboxWith(count: Count): void {
    this.outbox.read = count;
  }

  /** One reconciliation (docs/payments.md) ran. */
  reconciliation(kind: ReconciliationKind, outcome: ReconciliationOutcome): void {
    this.reconciliations.inc({ kind, outcome });
  }

  // ---- chain --------------------------------------------------------------------------------

  countChainQueueWith(count: Count): void {
    this.chainQueue.read = count;
  }

  /** A block was written: how long it took, and when each of its items had been accepted (Unix ms). */
  chainSealed(durationMs: number, acceptedAt: readonly number[], failed: number, sealedAt = Date.now()): void {
    this.sealDuration.observe(durationMs / 1000);
    for (const t of acceptedAt) this.itemWait.observe(Math.max(0, sealedAt - t) / 1000);
    if (acceptedAt.length) this.sealedItems.inc({ result: 'confirmed' }, acceptedAt.length);
    if (failed) this.sealedItems.inc({ result: 'failed' }, failed);
  }

  // ---- sources read when scraped ------------------------------------------------------------

  readHeldCallsFrom(read: () => number): void {
    this.heldCalls = read;
  }

  readLogStatsFrom(read: () => { dropped: number; bufferedBytes: number }): void {
    this.logStats = read;
  }

  /** The exposition text: this instance's metrics, then the process's. */
  async text(): Promise<string> {
    const own = await this.registry.metrics();
    const proc = await processMetrics().metrics();
    return `${own}\n${proc}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
