/** A resend is followed until the attempt it started is recorded, and says what the merchant's backend answered. */
import type { CallbackAttempt, CallbackItem } from '@kit/shared/api/callbacks';
import { translator } from '../i18n/i18n';
import { followResend } from './follow-resend';

const en = translator('en');
const at = '2026-11-27T07:00:00.000Z';
const attempt = (httpStatus: number | null, answer: string | null, error: string | null = null): CallbackAttempt => ({
  at,
  httpStatus,
  answer,
  error,
  latencyMs: 3,
});
const item = (state: CallbackItem['state'], attempts: CallbackAttempt[]): CallbackItem => ({
  id: '7',
  prepayId: 'P1',
  event: 'finish',
  state,
  subMerchantId: 'SM1',
  merchantId: 'PM1',
  url: 'https://shop.example/cb',
  createdAt: at,
  attempts,
  nextAttemptAt: null,
});
const given = item('given_up', [attempt(503, 'maintenance')]);

/** An API whose answers are `seen`, one per poll (the last repeating). */
function api(seen: CallbackItem[][]) {
  const asked: Array<{ prepayId?: string }> = [];
  return {
    asked,
    callbacks: async (q?: { prepayId?: string }) => {
      asked.push(q ?? {});
      return { callbacks: seen.length > 1 ? seen.shift()! : seen[0] };
    },
  };
}
const now = { sleep: async () => {}, intervalMs: 100, timeoutMs: 1_000 };

describe('followResend', () => {
  it('waits for the new attempt and says the backend’s answer: a repeat the verifier dropped still reads as delivered', async () => {
    const a = api([[given], [item('pending', given.attempts)], [item('delivered', [...given.attempts, attempt(200, 'OK')])]]);
    const out = en(await followResend(a, given, now));
    expect(out).toMatch(/^Resent, and delivered at 2026-11-27 \d\d:00:00: your backend answered HTTP 200 “OK”\./);
    expect(out).toContain('dropped as a duplicate');
    expect(a.asked).toEqual([{ prepayId: 'P1' }, { prepayId: 'P1' }, { prepayId: 'P1' }]);
  });

  it('says why a new attempt failed, and when the new series was given up again', async () => {
    const failed = en(await followResend(api([[item('pending', [...given.attempts, attempt(500, 'database down')])]]), given, now));
    expect(failed).toMatch(/^Resent, but not delivered at .*: HTTP 500 “database down”\. Its attempts go on/);
    const refused = en(await followResend(api([[item('given_up', [...given.attempts, attempt(null, null, 'connect ECONNREFUSED')])]]), given, now));
    expect(refused).toBe('Resent, but not delivered: connect ECONNREFUSED. Every attempt of the new series failed, so it is given up again.');
  });

  it('says the attempts go on when none is recorded in time', async () => {
    expect(en(await followResend(api([[given]]), given, now))).toBe('Resent: no answer from your backend yet; its attempts go on (Refresh to follow them).');
  });
});
