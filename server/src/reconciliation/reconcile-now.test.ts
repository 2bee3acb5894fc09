/**
 * Reconcile now runs each channel with a bill through the daily job's own run: a bill not made yet
 * is "not ready", one that cannot be read "failed"; two requests for a day share one run; a day
 * that has not begun, a date that is none and a service without bills are refused.
 */
import pino from 'pino';
import { KitError, type PaymentChannel } from '@kit/shared';
import { BillNotReady, type ReconciliationService } from './recon-service';
import { ReconcileNow } from './reconcile-now';

const log = pino({ level: 'silent' });
const NOW = Date.parse('2026-11-27T04:00:00Z'); // 12:00 in China

function service(channels: PaymentChannel[], outcome: (channel: PaymentChannel) => Promise<void>) {
  const calls: string[] = [];
  const fake = {
    channelsWithBills: () => channels,
    reconcile: async (date: string, channel: PaymentChannel) => {
      calls.push(`${date}/${channel}`);
      await outcome(channel);
      return { date, channel, state: 'done', totals: {}, differences: [] };
    },
  } as unknown as ReconciliationService;
  return { fake, calls };
}

describe('ReconcileNow', () => {
  it('runs every channel with a bill and says what became of each', async () => {
    const { fake, calls } = service(['SocialNative', 'SocialCardNetworkBizSmall'], async (c) => {
      if (c === 'SocialCardNetworkBizSmall') throw new BillNotReady('the bill of 2026-11-27 is not ready yet');
    });
    expect(await new ReconcileNow(fake, log).run('2026-11-27', 'PM1', NOW)).toEqual([
      { channel: 'SocialNative', outcome: 'done' },
      { channel: 'SocialCardNetworkBizSmall', outcome: 'not_ready', error: 'the bill of 2026-11-27 is not ready yet' },
    ]);
    expect(calls).toEqual(['2026-11-27/SocialNative', '2026-11-27/SocialCardNetworkBizSmall']);
  });

  it('says why a bill could not be read, and lets a fault of its own through', async () => {
    const unreadable = service(['SocialNative'], async () => {
      throw new KitError('channel_error', 'the bill cannot be read: line 3');
    });
    expect(await new ReconcileNow(unreadable.fake, log).run('2026-11-26', 'PM1', NOW)).toEqual([
      { channel: 'SocialNative', outcome: 'failed', error: 'the bill cannot be read: line 3' },
    ]);
    const broken = service(['SocialNative'], async () => {
      throw new TypeError('a bug');
    });
    await expect(new ReconcileNow(broken.fake, log).run('2026-11-26', 'PM1', NOW)).rejects.toThrow('a bug');
  });

  it('shares one run between two requests for the same day, and runs again once it ended', async () => {
    let release: () => void = () => {};
    const { fake, calls } = service(['SocialNative'], () => new Promise<void>((r) => (release = r)));
    const now = new ReconcileNow(fake, log);
    const a = now.run('2026-11-27', 'PM1', NOW);
    const b = now.run('2026-11-27', 'SM2', NOW);
    await new Promise((r) => setImmediate(r));
    release();
    expect(await a).toEqual(await b);
    expect(calls).toHaveLength(1);
    const again = now.run('2026-11-27', 'PM1', NOW);
    await new Promise((r) => setImmediate(r));
    release();
    await again;
    expect(calls).toHaveLength(2);
  });

  it('refuses a day that has not begun in China, a date that is none, and a service without bills', async () => {
    const { fake } = service(['SocialNative'], async () => {});
    const now = new ReconcileNow(fake, log);
    expect(() => now.run('2026-11-28', 'PM1', NOW)).toThrow(expect.objectContaining({ error: 'invalid_request' }));
    expect(() => now.run('2026-02-30', 'PM1', NOW)).toThrow(expect.objectContaining({ error: 'invalid_request' }));
    // 20:00 UTC is already the next day in China.
    await expect(now.run('2026-11-28', 'PM1', Date.parse('2026-11-27T20:00:00Z'))).resolves.toEqual([{ channel: 'SocialNative', outcome: 'done' }]);
    const none = service([], async () => {});
    expect(() => new ReconcileNow(none.fake, log).run('2026-11-27', 'PM1', NOW)).toThrow(expect.objectContaining({ error: 'channel_unavailable' }));
  });
});
