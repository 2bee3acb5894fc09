/**
 * A production start with no payment channel configured (issue 33, item 4): one warning naming what
 * each channel lacks, where to read how to set it, and no daily reconciliation failing every few
 * minutes for a channel that has nothing to fetch.
 */
import { backends } from '../support/backends';
import { startServiceProcess } from '../support/process';

const sqlite = backends()[0];

describe('a production start without a payment channel', () => {
  afterAll(() => sqlite.cleanup());

  it('warns once, naming the missing settings, and logs no error', async () => {
    const service = await startServiceProcess({ ...sqlite.env(), NODE_ENV: 'production', RECONCILE_AT: '00:00', SHUTDOWN_DRAIN: '0s' });
    try {
      // The daily schedule has run by now (it adds due days at start).
      await new Promise((r) => setTimeout(r, 1_500));
      const lines = service
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; msg: string; missing?: Array<{ channel: string; missing: string[] }> });
      const warnings = lines.filter((l) => l.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0].msg).toMatch(/^no payment channel is configured, so orders can be created but not paid \(503 channel_unavailable\): SocialNative/);
      expect(warnings[0].msg).toContain('docs/payments.md, "Connecting a real merchant account"');
      expect(warnings[0].missing).toEqual([
        { channel: 'SocialNative', description: 'the social payment platform', missing: expect.arrayContaining(['PAY_GATEWAY_URL', 'PAY_SP_PRIVATE_KEY']) },
        { channel: 'SocialCardNetworkBizSmall', description: 'the card-network acquirer', missing: ['CARD_GATEWAY_URL', 'CARD_KEY', 'MP_APPID'] },
      ]);
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });
});
