import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { generateKeyPairSync } from 'node:crypto';
import { parseBytes, parseDuration } from './config';
import { loadConfig, settingDocs } from './configuration';

describe('configuration', () => {
  it('starts on working defaults with nothing set', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 8080, production: false, DATA_DIR: path.resolve('./data') });
  });

  it('reads durations, sizes, flags and schedules in the documented forms', () => {
    expect([parseDuration('500ms'), parseDuration('15s'), parseDuration('3m'), parseDuration('2h'), parseDuration('250')]).toEqual([
      500, 15_000, 180_000, 7_200_000, 250,
    ]);
    expect([parseBytes('512kb'), parseBytes('8MB'), parseBytes('100')]).toEqual([524_288, 8_388_608, 100]);
    const c = loadConfig({ CALLBACK_RETRY_SCHEDULE: '1s,2s,5s', PORT: '0' });
    expect(c.CALLBACK_RETRY_SCHEDULE).toEqual([1_000, 2_000, 5_000]);
    expect(c.PORT).toBe(0);
  });

  it('refuses malformed values with one clear line each, naming the variable', () => {
    expect(() => loadConfig({ PORT: 'abc', CALLBACK_RETRY_SCHEDULE: '1s,soon', NODE_ENV: 'staging' })).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/^Invalid configuration:\n/) }),
    );
    let message = '';
    try {
      loadConfig({ PORT: 'abc', CALLBACK_RETRY_SCHEDULE: '1s,soon' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('PORT: must be a port number (0–65535)');
    expect(message).toContain('CALLBACK_RETRY_SCHEDULE: "soon" is not a duration such as 500ms, 15s, 3m or 2h');
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
  });

  it.each([
    'postgres://kit:secret@db.internal:5432/kit',
    'postgresql://kit@127.0.0.1/kit?sslmode=require',
    // libpq's Unix-socket form: a user and no host, which WHATWG URL parsing refuses
    'postgres://kit@/kit?host=/var/run/postgresql',
    'postgresql:///kit?host=/var/run/postgresql',
  ])('takes the PostgreSQL URL %s', (url) => {
    expect(loadConfig({ DATABASE_URL: url }).DATABASE_URL).toBe(url);
  });

  it.each(['kit.sqlite', 'mysql://kit@db/kit', 'http://db/kit', 'postgres://'])('refuses %s as DATABASE_URL, saying what it takes', (url) => {
    expect(() => loadConfig({ DATABASE_URL: url })).toThrow(/DATABASE_URL: must be a PostgreSQL URL: postgres:\/\/user:pass@host:5432\/kit/);
  });

  it('documents every setting with its defaults', () => {
    const docs = settingDocs();
    expect(docs.filter((d) => !d.description)).toEqual([]);
    expect(docs.find((d) => d.key === 'PORT')).toMatchObject({ development: '8080', production: '8080' });
    expect(loadConfig({ NODE_ENV: 'production' }).production).toBe(true);
  });

  describe('what production refuses at start (design 7.5)', () => {
    const KEYS = { KIT_MASTER_KEY: '11'.repeat(32), CHAIN_NODE_KEY: '22'.repeat(32) };
    const PG = 'postgres://kit@db.internal/kit';
    const refused = (env: NodeJS.ProcessEnv): string[] => {
      try {
        loadConfig({ NODE_ENV: 'production', ...env });
        return [];
      } catch (e) {
        return [...(e as Error).message.matchAll(/^ {2}([A-Z_]+):/gm)].map((m) => m[1]);
      }
    };

    it.each<[string, NodeJS.ProcessEnv]>([
      ['an https:// PUBLIC_URL on PostgreSQL with both keys', { PUBLIC_URL: 'https://pay.shop.example/kit', DATABASE_URL: PG, ...KEYS }],
      ['SQLite without keys (one instance generates them)', { PUBLIC_URL: 'https://pay.shop.example' }],
      ['a loopback http:// PUBLIC_URL (localhost)', { PUBLIC_URL: 'http://localhost:8080' }],
      ['a loopback http:// PUBLIC_URL (127.x)', { PUBLIC_URL: 'http://127.0.0.1:8080/kit' }],
      ['a loopback http:// PUBLIC_URL (::1)', { PUBLIC_URL: 'http://[::1]:8080' }],
      ['no PUBLIC_URL, listening on every address (given out as 127.0.0.1)', {}],
      ['no PUBLIC_URL, listening on loopback', { HOST: '127.0.0.1' }],
    ])('takes %s', (_, env) => {
      expect(refused(env)).toEqual([]);
    });

    it.each<[string, NodeJS.ProcessEnv, string[]]>([
      ['an http:// PUBLIC_URL', { PUBLIC_URL: 'http://pay.shop.example' }, ['PUBLIC_URL']],
      ['an http:// PUBLIC_URL on a network address', { PUBLIC_URL: 'http://192.168.1.20:8080' }, ['PUBLIC_URL']],
      ['no PUBLIC_URL while listening on a network address', { HOST: '10.0.0.5' }, ['PUBLIC_URL']],
      ['PostgreSQL without KIT_MASTER_KEY', { DATABASE_URL: PG, CHAIN_NODE_KEY: KEYS.CHAIN_NODE_KEY }, ['KIT_MASTER_KEY']],
      ['PostgreSQL without CHAIN_NODE_KEY', { DATABASE_URL: PG, KIT_MASTER_KEY: KEYS.KIT_MASTER_KEY }, ['CHAIN_NODE_KEY']],
      ['all of them at once', { PUBLIC_URL: 'http://pay.shop.example', DATABASE_URL: PG }, ['PUBLIC_URL', 'KIT_MASTER_KEY', 'CHAIN_NODE_KEY']],
    ])('refuses %s, naming the setting', (_, env, names) => {
      expect(refused(env)).toEqual(names);
    });

    it('refuses none of it outside production', () => {
      expect(() => loadConfig({ PUBLIC_URL: 'http://pay.shop.example', DATABASE_URL: PG, HOST: '10.0.0.5' })).not.toThrow();
    });
  });

  describe('API v3 settings (PAY_PROTOCOL=v3, the default)', () => {
    const pem = (type: 'private' | 'public') => {
      const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
      return type === 'private'
        ? pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
        : pair.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    };
    // Generated once: key generation is slow on a busy machine.
    const merchantKey = pem('private');
    const platformKey = pem('public');
    const complete = () => ({
      PAY_SP_PRIVATE_KEY: merchantKey,
      PAY_SP_CERT_SERIAL: '5157F09EFDC096DE15EBE81A47057A7232F1B8E1',
      PAY_V3_KEY: '0123456789abcdef0123456789abcdef',
      PAY_PLATFORM_PUBLIC_KEY: platformKey,
      PAY_PLATFORM_PUBLIC_KEY_ID: 'PUB_KEY_ID_0112345678902025010100000000000000',
    });
    const problem = (env: NodeJS.ProcessEnv): string => {
      try {
        loadConfig(env);
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    };

    it('v3 is the default; nothing set outside production is the development material, not a refusal', () => {
      expect(loadConfig({}).PAY_PROTOCOL).toBe('v3');
      expect(loadConfig({ PAY_PROTOCOL: 'v2' }).PAY_PROTOCOL).toBe('v2');
      expect(problem({ PAY_PROTOCOL: 'v4' })).toContain('PAY_PROTOCOL');
    });

    it('takes a complete configuration, in public-key mode or (without the platform key) certificate mode, and PEM files by path', () => {
      expect(problem(complete())).toBe('');
      const { PAY_PLATFORM_PUBLIC_KEY: _k, PAY_PLATFORM_PUBLIC_KEY_ID: _i, ...certificateMode } = complete();
      expect(problem(certificateMode)).toBe('');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-config-'));
      try {
        const file = path.join(dir, 'apiclient_key.pem');
        fs.writeFileSync(file, complete().PAY_SP_PRIVATE_KEY);
        expect(problem({ ...complete(), PAY_SP_PRIVATE_KEY: file })).toBe('');
        expect(problem({ ...complete(), PAY_SP_PRIVATE_KEY: path.join(dir, 'missing.pem') })).toMatch(/^Invalid configuration:\n {2}PAY_SP_PRIVATE_KEY: /);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it.each([
      ['an unparsable private key', { PAY_SP_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----' }, 'PAY_SP_PRIVATE_KEY'],
      ['no certificate serial', { PAY_SP_CERT_SERIAL: undefined }, 'PAY_SP_CERT_SERIAL'],
      ['a serial that is not hexadecimal', { PAY_SP_CERT_SERIAL: 'not-a-serial' }, 'PAY_SP_CERT_SERIAL'],
      ['an APIv3 key of the wrong length', { PAY_V3_KEY: 'short' }, 'PAY_V3_KEY'],
      ['no APIv3 key', { PAY_V3_KEY: undefined }, 'PAY_V3_KEY'],
      ['the public key without its id', { PAY_PLATFORM_PUBLIC_KEY_ID: undefined }, 'PAY_PLATFORM_PUBLIC_KEY_ID'],
      ['the id without the public key', { PAY_PLATFORM_PUBLIC_KEY: undefined }, 'PAY_PLATFORM_PUBLIC_KEY'],
      ['an unparsable platform key', { PAY_PLATFORM_PUBLIC_KEY: 'garbage' }, 'PAY_PLATFORM_PUBLIC_KEY'],
    ])('refuses %s at startup, naming the setting', (_what, patch, setting) => {
      const env: NodeJS.ProcessEnv = { ...complete(), ...patch };
      for (const [k, v] of Object.entries(patch)) if (v === undefined) delete env[k];
      expect(problem(env)).toMatch(new RegExp(`^Invalid configuration:\\n {2}${setting}: `));
    });

    it('refuses a production configuration with a gateway and no keys; PAY_PROTOCOL=v2 does not read them', () => {
      expect(problem({ NODE_ENV: 'production', PAY_GATEWAY_URL: 'https://api.mch.weixin.qq.com', PAY_SP_APPID: 'wx1', PAY_SP_MCH_ID: '1' })).toMatch(
        /PAY_SP_CERT_SERIAL|PAY_SP_PRIVATE_KEY/,
      );
      expect(problem({ PAY_PROTOCOL: 'v2', PAY_SP_PRIVATE_KEY: 'garbage' })).toBe('');
    });
  });
});

describe('the Alipay section', () => {
  it('is off with none of its settings, and refuses an incomplete or unparsable one naming the setting', () => {
    expect(loadConfig({}).ALIPAY_APP_ID).toBeUndefined();
    expect(() => loadConfig({ ALIPAY_APP_ID: '2021000122671080' })).toThrow(/^Invalid configuration:\n {2}ALIPAY_PRIVATE_KEY: required/);
    expect(() => loadConfig({ ALIPAY_APP_ID: '2021000122671080', ALIPAY_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' })).toThrow(
      /ALIPAY_PRIVATE_KEY: not an RSA private key/,
    );
    expect(() => loadConfig({ ALIPAY_GATEWAY_URL: 'not a url' })).toThrow(/ALIPAY_GATEWAY_URL/);
  });
});
