/**
 * What became of a resend: the console watches the callback (its order's callbacks) until the
 * attempt the resend started is recorded, then says how the merchant's backend answered. A 200
 * "OK" to an event the backend had handled before is how the shared callback verifier drops a
 * repeat, so the message says that too: otherwise a resend into a duplicate looks like nothing.
 */
import type { CallbackAttempt, CallbackItem } from '@kit/shared/api/callbacks';
import type { ConsoleApi } from '../api';
import { localTime, msg, type Msg } from '../i18n/i18n';

export interface FollowOptions {
  /** How long to wait for the new attempt before saying its attempts go on. */
  timeoutMs?: number;
  intervalMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Why an attempt was not a delivery: the status and what the backend said, or why there was no answer. */
function why(a: CallbackAttempt): Msg | string {
  if (a.httpStatus === null) return a.error ?? msg('cb.noAnswer');
  return `HTTP ${a.httpStatus} “${a.answer || a.error || ''}”`;
}

/** The outcome of a resend of `item`, once its next attempt is recorded (or `cb.resentNoNews` after the timeout). */
export async function followResend(api: Pick<ConsoleApi, 'callbacks'>, item: CallbackItem, opts: FollowOptions = {}): Promise<Msg> {
  const { timeoutMs = 10_000, intervalMs = 400, sleep = pause } = opts;
  const before = item.attempts.length;
  for (let waited = 0; waited <= timeoutMs; waited += intervalMs) {
    await sleep(intervalMs);
    const { callbacks } = await api.callbacks({ prepayId: item.prepayId });
    const now = callbacks.find((c) => c.id === item.id);
    const last = now && now.attempts.length > before ? now.attempts[now.attempts.length - 1] : undefined;
    if (!now || !last) continue;
    if (now.state === 'delivered') {
      return msg('cb.resentDelivered', { time: localTime(last.at), status: String(last.httpStatus), answer: last.answer || msg('cb.emptyAnswer') });
    }
    if (now.state === 'given_up') return msg('cb.resentGivenUp', { why: why(last) });
    return msg('cb.resentFailed', { time: localTime(last.at), why: why(last) });
  }
  return msg('cb.resentNoNews');
}
