import pino from 'pino';
import { startLoop } from './loop';

const log = pino({ level: 'silent' });
const until = async (cond: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
};

describe('startLoop', () => {
  it('runs again at once when poked while a tick was running, instead of waiting for the interval', async () => {
    let ticks = 0;
    let release!: () => void;
    const loop = startLoop(
      't',
      60_000,
      async () => {
        ticks += 1;
        if (ticks === 1) await new Promise<void>((r) => (release = r));
      },
      log,
    );
    await until(() => ticks === 1);
    loop.poke(); // work queued while tick 1 is busy
    release();
    await until(() => ticks === 2);
    expect(ticks).toBe(2);
    await loop.stop();
  });

  it('waits the interval when nothing is left, and a poke cuts the wait short', async () => {
    let ticks = 0;
    const loop = startLoop(
      't',
      60_000,
      async () => {
        ticks += 1;
      },
      log,
    );
    await until(() => ticks === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(ticks).toBe(1);
    loop.poke();
    await until(() => ticks === 2);
    expect(ticks).toBe(2);
    await loop.stop();
  });

  it('carries on after a failing tick and stops cleanly', async () => {
    let ticks = 0;
    const loop = startLoop(
      't',
      10,
      async () => {
        ticks += 1;
        if (ticks === 1) throw new Error('boom');
      },
      log,
    );
    await until(() => ticks >= 3);
    await loop.stop();
    const after = ticks;
    await new Promise((r) => setTimeout(r, 50));
    expect(ticks).toBe(after);
  });
});
