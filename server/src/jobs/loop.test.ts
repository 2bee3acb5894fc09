import pino from 'pino';
import { TestClock } from '@kit/shared/test-clock';
import { startLoop } from './loop';

const log = pino({ level: 'silent' });

describe('startLoop', () => {
  it('runs again at once when poked while a tick was running, instead of waiting for the interval', async () => {
    const clock = new TestClock({ frozen: true });
    let ticks = 0;
    let release!: () => void;
    let running!: () => void;
    const tickStarted = new Promise<void>((r) => (running = r));
    const loop = startLoop(
      't',
      60_000,
      async () => {
        ticks += 1;
        if (ticks === 1) {
          running();
          await new Promise<void>((r) => (release = r));
        }
      },
      log,
      clock,
    );
    await tickStarted;
    loop.poke(); // work queued while tick 1 is busy
    const settled = loop.settle();
    release();
    await settled;
    expect(ticks).toBe(2);
    await loop.stop();
  });

  it('waits the interval on its clock when nothing is left, and a poke cuts the wait short', async () => {
    const clock = new TestClock({ frozen: true });
    let ticks = 0;
    const loop = startLoop(
      't',
      60_000,
      async () => {
        ticks += 1;
      },
      log,
      clock,
    );
    expect(await loop.settle()).toBe(false);
    const afterSettle = ticks;
    clock.advance('59s');
    expect(ticks).toBe(afterSettle);
    clock.advance('1s');
    await loop.settle();
    expect(ticks).toBeGreaterThan(afterSettle);
    await loop.stop();
  });

  it('settle says whether the loop worked, and ticks again while it reports more', async () => {
    const clock = new TestClock({ frozen: true });
    let left = 3;
    const loop = startLoop('t', 60_000, async () => (left > 0 ? (left--, left > 0 ? 'more' : 'worked') : undefined), log, clock);
    expect(await loop.settle()).toBe(true);
    expect(left).toBe(0);
    expect(await loop.settle()).toBe(false);
    await loop.stop();
  });

  it('carries on after a failing tick, after its interval, and stops cleanly', async () => {
    const clock = new TestClock({ frozen: true });
    let ticks = 0;
    const loop = startLoop(
      't',
      10,
      async () => {
        ticks += 1;
        if (ticks === 1) throw new Error('boom');
      },
      log,
      clock,
    );
    await loop.settle();
    expect(ticks).toBe(2); // the failed first tick, and the settle's own
    clock.advance(10);
    await loop.settle();
    expect(ticks).toBe(3);
    await loop.stop();
    const after = ticks;
    clock.advance('1m');
    expect(ticks).toBe(after);
    expect(await loop.settle()).toBe(false);
  });
});
