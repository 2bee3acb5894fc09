/**
 * A production start with no payment channel configured (issue 33, item 4): one warning naming what
 * each channel lacks, where to read how to set it, and no daily reconciliation failing every few
 * minutes for a channel that has nothing to fetch. And a production set-up that would start and
 * break later is refused at start (issue 42, item 1; design 7.5).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/connect';
import { backends } from '../support/backends';
import { refusedServiceStart, runKitCommand, startServiceProcess } from '../support/process';
import { waitFor } from '../support/wait';

const sqlite = backends()[0];

describe('a production start without a payment channel', () => {
  afterAll(() => sqlite.cleanup());

  it('warns once, naming the missing settings, adds no daily reconciliation, and logs no error', async () => {
    const env: NodeJS.ProcessEnv = { ...sqlite.env(), NODE_ENV: 'production', RECONCILE_AT: '00:00', SHUTDOWN_DRAIN: '0s' };
    const service = await startServiceProcess(env);
    let stopped = false;
    try {
      const logged = () =>
        service
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { level: number; msg: string; missing?: Array<{ channel: string; missing: string[] }> });
      // The warning follows the start of the background work, the daily schedule's first look (it adds due days at start) included.
      await waitFor(() => logged().some((l) => l.msg === 'kit service ready') && logged().some((l) => l.level === 40), 'the start logged');
      // A stop waits for a look of the schedule under way and the runs it started, and writes out the log.
      expect(await service.stop()).toBe(0);
      stopped = true;
      const db = await openDatabase({ dataDir: env.DATA_DIR! });
      try {
        expect(await db.db.selectFrom('jobs').select(['key', 'state']).where('queue', '=', 'reconcile.daily').execute()).toEqual([]);
      } finally {
        await db.close();
      }
      const lines = logged();
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
      if (!stopped) await service.stop();
    }
  });
});

describe('a production set-up that would break later', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-production-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  /**
   * A plain-HTTP public address, and PostgreSQL without the keys every instance must share. The
   * database is a closed port: the refusal comes before any connection (and before any key is generated).
   */
  const broken = (dir: string) => ({
    KIT_ENV_FILE: 'off',
    NODE_ENV: 'production',
    DATA_DIR: dir,
    PUBLIC_URL: 'http://shop.example/kit',
    DATABASE_URL: 'postgres://kit@127.0.0.1:9/kit',
    LOG_LEVEL: 'info',
  });
  const NAMED = [
    /^ {2}PUBLIC_URL: must be an https:\/\/ address, not http:\/\/shop\.example\/kit: .*notifications only to HTTPS.*refuse logins over plain HTTP/m,
    /^ {2}KIT_MASTER_KEY: required in production on PostgreSQL \(DATABASE_URL\), the same on every instance/m,
    /^ {2}CHAIN_NODE_KEY: required in production on PostgreSQL \(DATABASE_URL\), the same on every instance/m,
  ];

  it('stops the service at start with exit 1, naming PUBLIC_URL, KIT_MASTER_KEY and CHAIN_NODE_KEY, having generated nothing', async () => {
    const dir = dataDir();
    const { code, output } = await refusedServiceStart(broken(dir));
    expect(code).toBe(1);
    expect(output).toMatch(/^Invalid configuration:$/m);
    for (const line of NAMED) expect(output).toMatch(line);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('refuses every kit command alike: demo create prints no address nobody can log in at', async () => {
    const dir = dataDir();
    const { code, stdout, stderr } = await runKitCommand(['demo', 'create', '--callback', 'https://shop.example/callbacks'], broken(dir));
    expect(code).toBe(1);
    for (const line of NAMED) expect(stderr).toMatch(line);
    expect(stdout).toBe('');
    expect(stderr).not.toContain('/pos/');
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('takes a loopback http:// address on SQLite (a trial on one machine) and generates its keys; demo create says how to log in over it', async () => {
    const dir = dataDir();
    const env = {
      KIT_ENV_FILE: 'off',
      NODE_ENV: 'production',
      DATA_DIR: dir,
      PUBLIC_URL: 'http://localhost:8080',
      CALLBACK_ALLOW_PRIVATE: 'on',
    };
    const { code, stdout, stderr } = await runKitCommand(['demo', 'create', '--callback', 'http://127.0.0.1:9/callbacks'], env);
    expect({ code, stderr }).toEqual({ code: 0, stderr: expect.stringContaining('Open http://localhost:8080/pos/') });
    expect(JSON.parse(stdout)).toMatchObject({ url: 'http://localhost:8080' });
    expect(stderr).toContain('Logins over plain HTTP are refused: set ALLOW_INSECURE_LOGIN_ON_LOOPBACK=on for a trial on this machine');
    expect(fs.readdirSync(dir)).toEqual(expect.arrayContaining(['master.key', 'chain-node.key']));
  });
});
