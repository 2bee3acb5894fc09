/** What the sandbox plays with a configuration (`DevPlugin.plays`), and what it hands the providers it plays. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@kit/server/configuration';
import { alipay } from '@kit/server/payments/providers/alipay';
import { cardNetwork } from '@kit/server/payments/providers/card-network';
import { playedBy } from '@kit/server/payments/providers/played';
import { channelSetup } from '@kit/server/payments/providers/setup';
import { socialV2 } from '@kit/server/payments/providers/social-v2';
import { socialV3 } from '@kit/server/payments/providers/social-v3';
import { sandboxPlugin } from '../plugin';
import { devV3Material } from '../v3/dev-credentials';

describe('the providers the sandbox plays', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-played-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('with no setting plays every platform, handing Alipay the development keys as its settings', () => {
    const config = loadConfig({ KIT_ENV_FILE: 'off', DATA_DIR: dir });
    const played = playedBy(config, sandboxPlugin);
    expect([...played.ids].sort()).toEqual(['alipay', 'card-network', 'social-v3', 'social-v2'].sort());
    expect(played.config.ALIPAY_APP_ID).toMatch(/^\d{16}$/);
    expect(played.config.ALIPAY_PRIVATE_KEY).toContain('BEGIN PRIVATE KEY');
    expect(played.config.ALIPAY_PUBLIC_KEY).toContain('BEGIN PUBLIC KEY');
    expect(config.ALIPAY_APP_ID).toBeUndefined();
    // And the social platform the API v3 development keys of DATA_DIR/pay-v3/, by the same rule.
    expect(played.config).toMatchObject(devV3Material(dir).settings);
    expect(config.PAY_SP_PRIVATE_KEY).toBeUndefined();
    // Played, every channel is ready: the gateway is the sandbox's, the keys are the handed ones.
    expect(channelSetup(played.config, played.ids)).toEqual(
      expect.arrayContaining([expect.objectContaining({ channel: 'Alipay', missing: [] }), expect.objectContaining({ channel: 'SocialNative', missing: [] })]),
    );
    // Unplayed, the same configuration lacks the gateways and has Alipay off.
    const bare = channelSetup(config);
    expect(bare.find((c) => c.channel === 'SocialNative')?.missing).toContain('PAY_GATEWAY_URL');
    expect(bare.find((c) => c.channel === 'Alipay')).toBeUndefined();
  });

  it('plays neither a platform whose gateway the operator set nor Alipay once any of its key settings is given, and never Alipay in production', () => {
    const config = { ...loadConfig({ KIT_ENV_FILE: 'off', DATA_DIR: dir, PAY_GATEWAY_URL: 'https://pay.example' }), ALIPAY_APP_ID: '2021000122671080' };
    expect(sandboxPlugin.plays(socialV3, config)).toBeUndefined();
    expect(sandboxPlugin.plays(alipay, config)).toBeUndefined();
    expect(sandboxPlugin.plays(cardNetwork, config)).toEqual({ settings: {} });
    // The operator's incomplete Alipay settings are still refused at start, naming the setting.
    expect(() => loadConfig({ KIT_ENV_FILE: 'off', DATA_DIR: dir, ALIPAY_APP_ID: '2021000122671080' })).toThrow(/ALIPAY_PRIVATE_KEY: /);
    const production = loadConfig({ KIT_ENV_FILE: 'off', NODE_ENV: 'production', SANDBOX_ENABLED: 'true', DATA_DIR: dir });
    expect(sandboxPlugin.plays(alipay, production)).toBeUndefined();
  });

  it('hands the social platform its development keys by the rule Alipay follows: not in production, not once a v3 key setting is given', () => {
    const production = loadConfig({ KIT_ENV_FILE: 'off', NODE_ENV: 'production', SANDBOX_ENABLED: 'true', DATA_DIR: dir });
    // Still played (its gateway setting is unset), but handed nothing: the channel then needs the keys, naming them.
    expect(sandboxPlugin.plays(socialV3, production)).toEqual({ settings: {} });
    expect(channelSetup(playedBy(production, sandboxPlugin).config).find((c) => c.channel === 'SocialNative')?.missing).toEqual(
      expect.arrayContaining(['PAY_SP_PRIVATE_KEY', 'PAY_SP_CERT_SERIAL', 'PAY_V3_KEY']),
    );
    const own = { ...loadConfig({ KIT_ENV_FILE: 'off', DATA_DIR: dir }), PAY_V3_KEY: 'k'.repeat(32) };
    expect(sandboxPlugin.plays(socialV3, own)).toEqual({ settings: {} });
    // Protocol v2 is handed the development merchant API certificate of its `/secapi/` calls, over the same merchant key.
    const v2 = loadConfig({ KIT_ENV_FILE: 'off', DATA_DIR: dir, PAY_PROTOCOL: 'v2', PAY_SP_KEY: 'k'.repeat(32) });
    const handed = sandboxPlugin.plays(socialV2, v2)?.settings;
    expect(handed?.PAY_V2_CLIENT_KEY).toBe(devV3Material(dir).settings.PAY_SP_PRIVATE_KEY);
    expect(handed?.PAY_V2_CLIENT_CERT).toContain('BEGIN CERTIFICATE');
    expect(sandboxPlugin.plays(socialV2, { ...v2, PAY_GATEWAY_URL: 'https://pay.example' })).toBeUndefined();
  });
});
