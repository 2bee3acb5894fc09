/**
 * What the service measures, in the Prometheus model (prom-client): one registry per service
 * instance, served at `GET /metrics`. Every metric is declared here with its help text; the code
 * that observes something calls one typed method, so label names and values stay few and fixed.
 *
 * Values that need a database count (outbox depth, chain queue) are read when scraped, at most
 * once per `COUNT_MAX_AGE_MS` and never for longer than `COUNT_TIMEOUT_MS`: a scraper cannot turn
 * into a query load, and a slow database answers with the last value instead of a hung scrape.
 */
import type { Clock } from '@kit/shared/clock';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RequestMetrics } from './request-metrics';
import type { StatementCount } from '../db/statement-count';

export const COUNT_MAX_AGE_MS = 5_000;
export const COUNT_TIMEOUT_MS = 1_000;

/** Outcome of one callback delivery attempt (section 6). */
export type CallbackOutcome = 'delivered' | 'refused' | 'timeout' | 'network_error' | 'gave_up';
/** How a login ended (the brute-force limit): checked and right, checked and wrong, refused unchecked while locked out, or the failure that started a lockout. */
export type LoginOutcome = 'succeeded' | 'failed' | 'throttled' | 'locked';
/** Which convergence path ran (docs/payments.md): order query on schedule, close at expiry, refund resumption, a duplicate payment's refund. */
export type ReconciliationKind = 'payment_query' | 'expiry_close' | 'refund_resume' | 'profit_sharing_follow' | 'duplicate_refund';
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
  private readonly logins = new Counter({
    name: 'kit_login_attempts_total',
    help: 'Logins (4.16, POS display, mini-program code exchange, console) by outcome: succeeded, failed (wrong credentials), throttled (refused with 429 while locked out), locked (a key, account or address, was locked out).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly cutCalls = new Counter({
    name: 'kit_shutdown_cut_requests_total',
    help: 'Requests still running when SHUTDOWN_GRACE ended, whose connections were closed without an answer.',
    registers: [this.registry],
  });
  private readonly reconciliations = new Counter({
    name: 'kit_payment_reconciliations_total',
    help: 'Money-path convergence runs (order queries, closes at expiry, refund resumptions, profit-sharing follow-ups) by kind and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly duplicatePayments = new Counter({
    name: 'kit_duplicate_payments_total',
    help: 'Second payments of an already paid order through another of its channel orders (an order is paid once: each is refunded automatically), by channel.',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });
  private readonly chainQueue: CachedCount;
  private readonly statementDifferences = new Counter({
    name: 'kit_reconciliation_differences_total',
    help: 'Differences daily statement reconciliation found between the channel bill and the kit (docs/reconciliation.md), by channel, kind and resolution; counted once per difference.',
    labelNames: ['channel', 'kind', 'resolution'] as const,
    registers: [this.registry],
  });
  private readonly lastReconciledDay = new Gauge({
    name: 'kit_reconciliation_last_day_seconds',
    help: 'Start (00:00 China time, as Unix seconds) of the last day reconciled with the channel bill, by channel.',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });
  private readonly lastDays = new Map<string, number>();
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

  private readonly anchorLast = new Gauge({
    name: 'kit_chain_anchor_last_block',
    help: 'The last ledger block anchored on the EVM chain (set where anchoring is configured).',
    registers: [this.registry],
  });
  private readonly anchorLagBlocks = new Gauge({
    name: 'kit_chain_anchor_lag_blocks',
    help: "Ledger blocks sealed but not anchored yet (as of the anchoring worker's last round).",
    registers: [this.registry],
  });
  private readonly anchorFailures = new Counter({
    name: 'kit_chain_anchor_failures_total',
    help: 'Anchoring rounds that failed, by reason: rpc (the chain could not be reached or the transaction not confirmed), refused (the contract refused the range: anchored already), mismatch (the contract holds a range that differs from this ledger).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly anchorResent = new Counter({
    name: 'kit_chain_anchor_resent_total',
    help: 'Anchor transactions sent again because the EVM node no longer knew them (restarted, mempool dropped), by nonce: same (the transaction itself, its nonce still free), new (the range anew, another transaction took the nonce).',
    labelNames: ['nonce'] as const,
    registers: [this.registry],
  });
  private readonly anchorRepriced = new Counter({
    name: 'kit_chain_anchor_repriced_total',
    help: 'Anchor transactions replaced by one of the same nonce at higher fees: kept unmined for an interval below the fees the EVM node asked, or lost by it with fees it would no longer take.',
    registers: [this.registry],
  });
  private readonly anchoredBlocks = new Counter({
    name: 'kit_chain_anchored_blocks_total',
    help: 'Ledger blocks anchored by this instance.',
    registers: [this.registry],
  });
  private readonly mpTokenRefreshes = new Counter({
    name: 'kit_mp_token_refreshes_total',
    help: "Calls of the platform's stable_token made by this instance that got a new mini-program access token, by kind: normal (before it expires, or the first), forced (force_refresh after the platform refused the token as invalid).",
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly mpPlatformErrors = new Counter({
    name: 'kit_mp_platform_errors_total',
    help: "Failed calls of the platform's mini-program server API (stable_token, getwxacodeunlimit) by api and errcode: the platform's errcode (40001 invalid token, 45009 quota…), or unreachable (no answer, HTTP 5xx, an unreadable answer).",
    labelNames: ['api', 'errcode'] as const,
    registers: [this.registry],
  });
  /** Seal time of the oldest block not anchored yet (Unix ms); undefined: none, or anchoring is off. */
  private oldestUnanchored?: number;

  /** Sources read when scraped; set by the runtime once the parts exist. */
  private heldCalls?: () => number;
  private otherInstances?: () => number;
  private dbStatements?: () => StatementCount;
  private logStats?: () => { dropped: number; bufferedBytes: number };
  private draining?: () => boolean;
  /** Whether the database answers (1) or not (0): the `/health` probe, read when scraped like the counts. */
  private readonly databaseUp: CachedCount;

  /** `clock`: the service's (ages of what it recorded); `countMaxAgeMs`: how long a database count is reused (COUNT_MAX_AGE_MS). */
  constructor(opts: { clock: Clock; countMaxAgeMs?: number }) {
    const { clock } = opts;
    this.outbox = new CachedCount(opts.countMaxAgeMs ?? COUNT_MAX_AGE_MS);
    this.chainQueue = new CachedCount(opts.countMaxAgeMs ?? COUNT_MAX_AGE_MS);
    this.databaseUp = new CachedCount(opts.countMaxAgeMs ?? COUNT_MAX_AGE_MS);
    // prom-client calls `collect` with the gauge as `this`; these read the sources set later.
    const held = () => this.heldCalls?.() ?? 0;
    const others = () => this.otherInstances?.() ?? 0;
    const statements = () => this.dbStatements?.() ?? { count: 0, named: 0 };
    const dropped = () => this.logStats?.().dropped ?? 0;
    const buffered = () => this.logStats?.().bufferedBytes ?? 0;
    const isDraining = () => (this.draining?.() ? 1 : 0);
    const { outbox, chainQueue, databaseUp } = this;
    new Gauge({
      name: 'kit_wait_for_finish_held',
      help: "Detail calls (4.2 waitForFinish=1, and the front ends' waits) held open on this instance right now.",
      registers: [this.registry],
      collect() {
        this.set(held());
      },
    });
    new Gauge({
      name: 'kit_other_instances',
      help: 'Other instances on this PostgreSQL database heard in the last three INSTANCE_HELLO_INTERVALs; while 0 (after the first second), this instance sends no order events.',
      registers: [this.registry],
      collect() {
        this.set(others());
      },
    });
    new Counter({
      name: 'kit_db_statements_total',
      help: 'Statements this instance sent to its database, BEGIN and COMMIT included (on PostgreSQL each is a round trip).',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(statements().count);
      },
    });
    new Counter({
      name: 'kit_db_statements_named_total',
      help: 'Of those, statements sent as named prepared statements: PostgreSQL parses and plans each once per connection.',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(statements().named);
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
    const unanchoredSince = () => this.oldestUnanchored;
    new Gauge({
      name: 'kit_chain_anchor_lag_seconds',
      help: 'Age of the oldest sealed ledger block not anchored yet (0 when all are anchored; set where anchoring is configured).',
      registers: [this.registry],
      collect() {
        const t = unanchoredSince();
        this.set(t === undefined ? 0 : Math.max(0, clock.now() - t) / 1000);
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
      name: 'kit_database_up',
      help: 'Whether the database answered a trivial query (the /health probe) when last asked: 1, or 0 while it does not (503 unavailable). Asked when scraped, at most once per 5 s.',
      registers: [this.registry],
      async collect() {
        const v = await databaseUp.get();
        if (v !== undefined) this.set(v);
      },
    });
    new Gauge({
      name: 'kit_draining',
      help: 'Whether this instance is stopping (1 from SIGTERM or SIGINT: /health answers 503 shutting_down during SHUTDOWN_DRAIN), else 0.',
      registers: [this.registry],
      collect() {
        this.set(isDraining());
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

  /** A second payment of an already paid order was recorded (its automatic refund follows). */
  duplicatePayment(channel: string): void {
    this.duplicatePayments.inc({ channel });
  }

  // ---- logins and shutdown ----------------------------------------------------------------

  loginOutcome(outcome: LoginOutcome): void {
    this.logins.inc({ outcome });
  }

  /** Requests cut at the end of the shutdown grace. */
  requestsCut(n: number): void {
    if (n > 0) this.cutCalls.inc(n);
  }

  /** A difference daily reconciliation found (or resolved: counted again under its new resolution). */
  statementDifference(channel: string, kind: string, resolution: string): void {
    this.statementDifferences.inc({ channel, kind, resolution });
  }

  /** A day was reconciled (`dayStartMs`: its 00:00 China time). */
  reconciledDay(channel: string, dayStartMs: number): void {
    const seconds = Math.floor(dayStartMs / 1000);
    // Re-running an older day does not move the figure back.
    if (seconds <= (this.lastDays.get(channel) ?? 0)) return;
    this.lastDays.set(channel, seconds);
    this.lastReconciledDay.set({ channel }, seconds);
  }

  // ---- chain --------------------------------------------------------------------------------

  countChainQueueWith(count: Count): void {
    this.chainQueue.read = count;
  }

  /** A block was written: how long it took, and when each of its items had been accepted (Unix ms). */
  chainSealed(durationMs: number, acceptedAt: readonly number[], failed: number, sealedAt: number): void {
    this.sealDuration.observe(durationMs / 1000);
    for (const t of acceptedAt) this.itemWait.observe(Math.max(0, sealedAt - t) / 1000);
    if (acceptedAt.length) this.sealedItems.inc({ result: 'confirmed' }, acceptedAt.length);
    if (failed) this.sealedItems.inc({ result: 'failed' }, failed);
  }

  /** What the anchoring worker saw in its last round. */
  chainAnchorProgress(p: { lastAnchored: number; latest: number; oldestUnanchoredTime?: number }): void {
    this.anchorLast.set(p.lastAnchored);
    this.anchorLagBlocks.set(Math.max(0, p.latest - p.lastAnchored));
    this.oldestUnanchored = p.oldestUnanchoredTime;
  }

  chainAnchorFailed(reason: 'rpc' | 'refused' | 'mismatch'): void {
    this.anchorFailures.inc({ reason });
  }

  chainAnchorResent(nonce: 'same' | 'new'): void {
    this.anchorResent.inc({ nonce });
  }

  chainAnchorRepriced(): void {
    this.anchorRepriced.inc();
  }

  chainAnchored(blocks: number): void {
    this.anchoredBlocks.inc(blocks);
  }

  // ---- the mini-program's server API ----------------------------------------------------------

  mpTokenRefresh(kind: 'normal' | 'forced'): void {
    this.mpTokenRefreshes.inc({ kind });
  }

  mpPlatformError(api: 'stable_token' | 'getwxacodeunlimit', errcode: string): void {
    this.mpPlatformErrors.inc({ api, errcode });
  }

  // ---- sources read when scraped ------------------------------------------------------------

  readHeldCallsFrom(read: () => number): void {
    this.heldCalls = read;
  }

  readOtherInstancesFrom(read: () => number): void {
    this.otherInstances = read;
  }

  readDbStatementsFrom(read: () => StatementCount): void {
    this.dbStatements = read;
  }

  readLogStatsFrom(read: () => { dropped: number; bufferedBytes: number }): void {
    this.logStats = read;
  }

  /** How to tell whether the database answers: `problem()` of the `/health` probe (undefined when it does). */
  probeDatabaseWith(problem: () => Promise<string | undefined>): void {
    this.databaseUp.read = async () => ((await problem()) === undefined ? 1 : 0);
  }

  readDrainingFrom(read: () => boolean): void {
    this.draining = read;
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
