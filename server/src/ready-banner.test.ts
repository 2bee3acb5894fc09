import type os from 'node:os';
import { loadConfig } from './configuration';
import { playedBy } from './payments/providers/played';
import type { ProviderModule } from './payments/providers/provider';
import { readyBanner } from './ready-banner';
import type { ServiceAddresses } from './runtime';

const LAN = {
  lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
  eth0: [{ address: '192.168.1.20', family: 'IPv4', internal: false }],
} as unknown as ReturnType<typeof os.networkInterfaces>;

/** What a service with a development plug-in hands the banner: the plug-in plays every platform whose gateway is unset. */
const playedUnsetGateways = (config: ReturnType<typeof loadConfig>) => ({
  played: playedBy(config, { plays: (m: ProviderModule) => (m.gatewayUrl(config as never) ? undefined : { settings: {} }) }),
});

function addresses(url: string, sandbox: boolean): ServiceAddresses {
  return {
    service: url,
    pos: `${url}/pos/`,
    mp: `${url}/mp/`,
    console: `${url}/console/`,
    docs: `${url}/docs/`,
    openapi: `${url}/openapi.json`,
    metrics: `${url}/metrics`,
    ...(sandbox ? { sandbox: `${url}/sandbox/` } : {}),
  };
}

describe('the ready banner', () => {
  it('in development listens on 127.0.0.1 only by default, and says so', () => {
    const config = loadConfig({ KIT_ENV_FILE: 'off' });
    expect(config.HOST).toBe('127.0.0.1');
    const text = readyBanner({
      config,
      addresses: addresses('http://127.0.0.1:8080', true),
      port: 8080,
      interfaces: LAN,
      services: playedUnsetGateways(config),
    }).join('\n');
    expect(text).toContain('listening on    http://127.0.0.1:8080 only (HOST=127.0.0.1; HOST=0.0.0.0 lets a phone on the network reach it)');
    expect(text).not.toContain('192.168.1.20');
    expect(text).not.toContain('WARNING');
    expect(text).toContain('npm run kit -- demo create --out demo.json');
    expect(text).toContain('settings        the environment only');
  });

  it('with HOST=0.0.0.0 lists every address it listens on and warns that the sandbox pays any code for whoever reaches them', () => {
    const config = loadConfig({ HOST: '0.0.0.0' });
    const text = readyBanner({ config, addresses: addresses('http://127.0.0.1:8080', true), port: 8080, interfaces: LAN, settingsFile: '/srv/kit/.env' }).join(
      '\n',
    );
    expect(text).toContain('listening on    every address of this machine (HOST=0.0.0.0): http://127.0.0.1:8080  http://192.168.1.20:8080');
    expect(text).toMatch(/WARNING +the sandbox is on and pays any code: anyone who reaches http:\/\/192\.168\.1\.20:8080 can mark orders paid/);
    expect(text).toContain('settings        /srv/kit/.env');
  });

  it('in production without a payment channel warns naming what is missing, and suggests only steps that work there', () => {
    const config = loadConfig({ NODE_ENV: 'production' });
    const text = readyBanner({ config, addresses: addresses('http://127.0.0.1:8080', false), port: 8080, interfaces: LAN }).join('\n');
    expect(text).toMatch(/WARNING +no payment channel is configured, so orders can be created but not paid/);
    for (const setting of [
      'PAY_GATEWAY_URL',
      'PAY_SP_APPID',
      'PAY_SP_MCH_ID',
      'PAY_SP_PRIVATE_KEY',
      'PAY_SP_CERT_SERIAL',
      'PAY_V3_KEY',
      'CARD_GATEWAY_URL',
      'CARD_KEY',
    ])
      expect(text).toContain(setting);
    // demo create would fail here (its callbacks point at this machine: url_not_public, and there is no sandbox).
    expect(text).not.toContain('demo create');
    expect(text).toContain('npm run kit -- app create --name NAME');
    expect(text).not.toContain('sandbox');
    expect(text).toContain('every address of this machine (HOST=0.0.0.0)');
  });

  it('in production with the social channel configured has no channel warning', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      PAY_PROTOCOL: 'v2',
      PAY_GATEWAY_URL: 'https://api.mch.weixin.qq.com',
      PAY_SP_KEY: 'k'.repeat(32),
      PAY_SP_APPID: 'wx1',
      PAY_SP_MCH_ID: '19',
    });
    const text = readyBanner({ config, addresses: addresses('http://127.0.0.1:8080', false), port: 8080, interfaces: LAN }).join('\n');
    expect(text).not.toContain('WARNING');
  });
});
