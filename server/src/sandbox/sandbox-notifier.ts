/**
 * The sandbox platform's notifications, the handler of queue `sandbox.notify`: sent to an order's
 * notify URL, repeated on the platform's schedule while the service does not acknowledge them with
 * `SUCCESS`, and, like the real platform now and then, sent again a few times after an acknowledgement.
 */
import type { Executor } from '../db/schema';
import type { Jobs } from '../jobs/jobs';
import type { JobRow, JobSettlement } from '../jobs/job-store';
import type { JobHandler } from '../workers/job-worker';
import { parseXml } from '../payments/protocol/xml';

export interface SandboxNotification {
  kind: 'pay' | 'refund';
  url: string;
  body: string;
  /** Extra copies still to send after the first acknowledgement. */
  duplicatesLeft: number;
}

export interface NotifierOptions {
  /** Waits between repeats while unacknowledged (SANDBOX_NOTIFY_SCHEDULE). */
  schedule: readonly number[];
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
  ) {}

  /** Queues a notification about `ref` (the channel prepay id or refund id), due at `at`; wake after the commit. */
  enqueue(on: Executor, ref: string, n: Omit<SandboxNotification, 'duplicatesLeft'>, at: number, duplicates = this.opts.duplicates): Promise<boolean> {
    return this.jobs.enqueue(on, { queue: this.queue, ref, payload: { ...n, duplicatesLeft: duplicates }, at });
  }

  wake(): void {
    this.jobs.wake(this.queue);
  }

  async run(job: JobRow, signal: AbortSignal): Promise<JobSettlement> {
    const n = JSON.parse(job.payload) as SandboxNotification;
    let acked = false;
    try {
      const res = await fetch(n.url, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8' },
        body: n.body,
        signal: AbortSignal.any([AbortSignal.timeout(NOTIFY_TIMEOUT_MS), signal]),
      });
      const text = await res.text();
      acked = res.ok && parseXml(text).return_code === 'SUCCESS';
    } catch {
      // not acknowledged
    }
    const now = Date.now();
    if (acked) {
      if (n.duplicatesLeft > 0) return { state: 'pending', nextAt: now + DUPLICATE_DELAY_MS, payload: { ...n, duplicatesLeft: n.duplicatesLeft - 1 } };
      return { state: 'done', result: 'acked' };
    }
    const wait = this.opts.schedule[job.attempts];
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
      state: r.state === 'pending' ? 'pending' : r.result,
      attempts: r.attempts,
    }));
  }
}
