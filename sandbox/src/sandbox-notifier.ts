/**
 * The sandbox platform's notifications, the handler of queue `sandbox.notify`: sent to an order's
 * notify URL, repeated on the platform's schedule while the service does not acknowledge them with
 * `SUCCESS`, and, like the real platform now and then, sent again a few times after an acknowledgement.
 */
import type { Clock } from '@kit/shared/clock';
import type { Executor, JobHandler, JobRow, JobSettlement, Jobs, Retry } from '@kit/server/plugins/dev-plugin';
import type { SandboxExecutor } from './sandbox-tables';
import { readFlatXml } from './protocol/v2-rules';

export interface SandboxNotification {
  kind: 'pay' | 'refund';
  url: string;
  body: string;
  /** Extra copies still to send after the first acknowledgement. */
  duplicatesLeft: number;
  /** API v3 (JSON, signed when sent, acknowledged by 200/204); protocol v2 (XML) when absent. */
  protocol?: 'v3';
  /** A v3 signature probe (`WECHATPAY/SIGNTEST/…`): sent once, and the service must refuse it. */
  probe?: boolean;
}

/** How v3 notifications are signed when they are sent, and how often a probe goes with one. */
export interface V3NotificationSigner {
  headers(body: string, probe: boolean): Record<string, string>;
  /** The chance (0…1) that a v3 notification is preceded by a signature probe (fault `v3SignProbes`). */
  probeRate(): number;
}

export interface NotifierOptions {
  /** Extra copies of each acknowledged notification (SANDBOX_DUPLICATE_NOTIFY). */
  duplicates: number;
}

const DUPLICATE_DELAY_MS = 200;
const NOTIFY_TIMEOUT_MS = 5_000;

export class SandboxNotifier implements JobHandler {
  readonly queue = 'sandbox.notify' as const;
  readonly concurrency = 64;
  readonly leaseMs = NOTIFY_TIMEOUT_MS + 5_000;

  constructor(
    private readonly jobs: Jobs,
    private readonly opts: NotifierOptions,
    /** The API v3 side's signer (sandbox/v3/sandbox-v3-notices.ts), given at construction. */
    private readonly v3: V3NotificationSigner,
    private readonly clock: Clock,
  ) {}

  /** Queues a notification about `ref` (the channel prepay id or refund id), due at `at`; wake after the commit. */
  async enqueue(
    on: SandboxExecutor,
    ref: string,
    n: Omit<SandboxNotification, 'duplicatesLeft'>,
    at: number,
    duplicates = this.opts.duplicates,
  ): Promise<boolean> {
    // The sandbox's view of the same database (and transaction): the jobs table is in it.
    const db = on as unknown as Executor;
    // Now and then the platform checks that signatures are checked: a probe just before the real one.
    if (n.protocol === 'v3' && Math.random() < this.v3.probeRate()) {
      await this.jobs.enqueue(db, { queue: this.queue, ref, payload: { ...n, probe: true, duplicatesLeft: 0 }, at });
    }
    return this.jobs.enqueue(db, { queue: this.queue, ref, payload: { ...n, duplicatesLeft: duplicates }, at });
  }

  wake(): void {
    this.jobs.wake(this.queue);
  }

  async run(job: JobRow, signal: AbortSignal, retry: Retry): Promise<JobSettlement> {
    const n = JSON.parse(job.payload) as SandboxNotification;
    let acked = false;
    const v3 = n.protocol === 'v3';
    try {
      const headers: Record<string, string> = v3
        ? { 'content-type': 'application/json', ...this.v3.headers(n.body, n.probe === true) }
        : { 'content-type': 'text/xml; charset=utf-8' };
      const res = await fetch(n.url, { method: 'POST', headers, body: n.body, signal: AbortSignal.any([this.clock.timeout(NOTIFY_TIMEOUT_MS), signal]) });
      const text = await res.text();
      // v3: 200 or 204 acknowledges, whatever the body; v2: `return_code` SUCCESS.
      acked = v3 ? res.status === 200 || res.status === 204 : res.ok && readFlatXml(text).return_code === 'SUCCESS';
    } catch {
      // not acknowledged
    }
    // A probe is sent once; a service that acknowledges it did not check the signature.
    if (n.probe) return { state: 'done', result: acked ? 'probe_accepted' : 'probe_refused' };
    const now = this.clock.now();
    if (acked) {
      if (n.duplicatesLeft > 0) return { state: 'pending', nextAt: now + DUPLICATE_DELAY_MS, payload: { ...n, duplicatesLeft: n.duplicatesLeft - 1 } };
      return { state: 'done', result: 'acked' };
    }
    const wait = retry.nextWait();
    return wait === undefined
      ? { state: 'failed', result: 'gave_up', error: 'never acknowledged' }
      : { state: 'pending', nextAt: now + wait, error: 'not acknowledged' };
  }

  /** The notifications sent about `ref`, with how they ended (tests of duplicate handling). */
  async notificationsFor(ref: string) {
    const rows = await this.jobs.history(this.queue, ref);
    return rows.map((r) => ({
      id: r.id,
      kind: (JSON.parse(r.payload) as SandboxNotification).kind,
      probe: (JSON.parse(r.payload) as SandboxNotification).probe === true,
      state: r.state === 'pending' ? 'pending' : r.result,
      attempts: r.attempts,
    }));
  }
}
