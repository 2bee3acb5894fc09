import { TestClock } from '@kit/shared/test-clock';
import { Retry, nextWait, type RetryPolicy } from './retry';

const clock = new TestClock({ frozen: true });

const query: RetryPolicy = { schedule: [10, 20, 30], firstWaitBeforeFirstRun: true, whenOver: { done: 'unpaid' }, unreachable: 'repeat-last' };
const retries: RetryPolicy = { schedule: [10, 20], firstWaitBeforeFirstRun: false, whenOver: 'give-up' };

describe('retry policies', () => {
  it('a query schedule: its first wait came before the first run, so run n is followed by wait n + 1', () => {
    expect(nextWait(query, { attempts: 0 })).toBe(20);
    expect(nextWait(query, { attempts: 1 })).toBe(30);
    expect(nextWait(query, { attempts: 2 })).toBeUndefined();
  });

  it('a retry schedule: the first run is at once, so run n is followed by wait n', () => {
    expect(nextWait(retries, { attempts: 0 })).toBe(10);
    expect(nextWait(retries, { attempts: 1 })).toBe(20);
    expect(nextWait(retries, { attempts: 2 })).toBeUndefined();
  });

  it('ends as the policy says once the schedule is over', () => {
    expect(new Retry(query, { attempts: 2 }, clock).later('NOTPAY')).toEqual({ state: 'done', result: 'unpaid' });
    expect(new Retry(retries, { attempts: 2 }, clock).later('refused')).toEqual({ state: 'failed', result: 'gave_up', error: 'refused' });
    const repeat = new Retry({ ...retries, whenOver: 'repeat-last' }, { attempts: 9 }, clock).later();
    expect(repeat.state).toBe('pending');
    expect(repeat.state === 'pending' && repeat.nextAt - clock.now()).toBeGreaterThan(10);
  });

  it('keeps asking an unreachable channel at the last wait when the policy says so', () => {
    const s = new Retry(query, { attempts: 5 }, clock).unreachable('timeout');
    expect(s).toMatchObject({ state: 'pending', error: 'timeout' });
    expect(new Retry(retries, { attempts: 5 }, clock).unreachable('timeout')).toMatchObject({ state: 'failed' });
  });
});
