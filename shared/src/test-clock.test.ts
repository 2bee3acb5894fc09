import { TestClock } from './test-clock';
import { systemClock } from './clock';

describe('TestClock', () => {
  it('a frozen clock stands still until advanced, then fires what became due in deadline order', () => {
    const clock = new TestClock({ start: 1_000_000, frozen: true });
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b'), 2_000);
    clock.setTimeout(() => fired.push('a'), 1_000);
    clock.setTimeout(() => fired.push('c'), 60_000);
    expect(clock.now()).toBe(1_000_000);
    clock.advance('1s');
    expect(fired).toEqual(['a']);
    clock.advance(1_000);
    expect(fired).toEqual(['a', 'b']);
    expect(clock.now()).toBe(1_002_000);
    clock.advance('1m');
    expect(fired).toEqual(['a', 'b', 'c']);
    expect(clock.pendingCount).toBe(0);
  });

  it('a timer set while others fire waits for its own deadline', () => {
    const clock = new TestClock({ frozen: true });
    const fired: number[] = [];
    clock.setTimeout(() => {
      fired.push(clock.now());
      clock.setTimeout(() => fired.push(clock.now()), 10_000);
    }, 1_000);
    const t0 = clock.now();
    clock.advance('5s');
    expect(fired).toEqual([t0 + 5_000]);
    clock.advance('10s');
    expect(fired).toEqual([t0 + 5_000, t0 + 15_000]);
  });

  it('a cleared timer never fires; sleep ends when its signal aborts', async () => {
    const clock = new TestClock({ frozen: true });
    let fired = false;
    const t = clock.setTimeout(() => (fired = true), 10);
    clock.clearTimeout(t);
    clock.advance('1h');
    expect(fired).toBe(false);
    const abort = new AbortController();
    const slept = clock.sleep(60_000, abort.signal);
    abort.abort();
    await slept;
    expect(clock.pendingCount).toBe(0);
  });

  it('a flowing clock fires on the machine time too, and advance adds to it', async () => {
    const clock = new TestClock();
    const before = clock.now();
    clock.advance('2h');
    expect(clock.now() - before).toBeGreaterThanOrEqual(7_200_000);
    await clock.sleep(5);
    const signal = clock.timeout(5);
    await new Promise((r) => signal.addEventListener('abort', r));
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('freeze holds a timer back; resume flows from where it stood', async () => {
    const clock = new TestClock();
    clock.freeze();
    const at = clock.now();
    let fired = false;
    clock.setTimeout(() => (fired = true), 1);
    await systemClock.sleep(20);
    expect(fired).toBe(false);
    expect(clock.now()).toBe(at);
    clock.resume();
    await clock.sleep(5);
    expect(fired).toBe(true);
    expect(() => clock.advance(-1)).toThrow('does not go back');
  });
});
