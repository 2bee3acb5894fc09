/**
 * A service killed with SIGKILL between accepting items and sealing them loses nothing: the queue
 * lives in the database, and the next start seals it. Runs the real `server/src/main.ts` as a child
 * process on each backend.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { KitClient } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { TEST_ENV } from '../support/kit';
import { runKit } from '../../src/kit/main';
import { i2c, settle, upload } from './chain-helpers';

const ROOT = path.resolve(__dirname, '../../..');

interface Child {
  proc: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

/** Starts the service and resolves with its URL once it logs that it is ready. */
function startService(env: NodeJS.ProcessEnv): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...TEST_ENV, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let buf = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`service did not start: ${err}`)), 30_000);
    proc.stderr!.on('data', (d) => (err += d));
    proc.stdout!.on('data', (d) => {
      buf += d;
      for (const line of buf.split('\n')) {
        try {
          const entry = JSON.parse(line);
          if (entry.msg === 'kit service ready') {
            clearTimeout(timer);
            resolve({ proc, url: entry.url, exited });
          }
        } catch {
          // partial line
        }
      }
    });
    proc.on('exit', (code) => reject(new Error(`service exited with ${code}: ${err}`)));
  });
}

describeEachBackend('chain queue survives a crash', (backend) => {
  let env: NodeJS.ProcessEnv;
  let child: Child | undefined;

  beforeAll(() => {
    env = backend.env();
  });
  afterEach(async () => {
    if (child && child.proc.exitCode === null) {
      child.proc.kill('SIGKILL');
      await child.exited;
    }
    child = undefined;
  });

  test('items acknowledged as pending before SIGKILL are confirmed after the restart', async () => {
    const lines: string[] = [];
    expect(await runKit(['app', 'create', '--name', 'crash'], env, (l) => lines.push(l))).toBe(0);
    const creds = JSON.parse(lines[0]) as { appId: string; appSecret: string };

    // First life: this instance does not seal, so everything acknowledged is still queued at the kill.
    child = await startService({ ...env, CHAIN_SEALER: 'off' });
    let client = new KitClient({ baseUrl: child.url, ...creds, timeoutMs: 5000 });
    const acknowledged: string[] = [];
    for (let call = 0; call < 4; call++) {
      const items = Array.from({ length: 50 }, (_, i) => ({ type: 'record', args: { id: `c-${call}-${i}`, call } }));
      const res = await upload(client, items);
      expect(res.body).toEqual({ version: '1', status: 'pending' });
      acknowledged.push(...items.map((it) => it.args.id));
    }
    // Mid-stream: more calls in flight while the process is killed. Those answered pending count too.
    const inFlight = Array.from({ length: 6 }, (_, call) => {
      const items = Array.from({ length: 50 }, (_, i) => ({ type: 'record', args: { id: `f-${call}-${i}` } }));
      return upload(client, items).then(
        (res) => (res.body.status === 'pending' ? items.map((it) => it.args.id) : []),
        () => [] as string[],
      );
    });
    const before = await settle(client, [i2c('record', 'c-0-0')], 0);
    expect(before).toEqual([{ id: '' }]);
    child.proc.kill('SIGKILL');
    expect(await child.exited).toBeNull();
    for (const ids of await Promise.all(inFlight)) acknowledged.push(...ids);

    // Second life: normal sealing.
    child = await startService({ ...env, CHAIN_SEAL_INTERVAL: '200ms' });
    client = new KitClient({ baseUrl: child.url, ...creds });
    const results = await settle(
      client,
      acknowledged.map((id) => i2c('record', id)),
      15_000,
    );
    const missing = acknowledged.filter((_, i) => !results[i].chainTrxId);
    expect(missing).toEqual([]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(200);
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);

    const report: string[] = [];
    expect(await runKit(['chain', 'verify'], env, (l) => report.push(l))).toBe(0);
    expect(JSON.parse(report[0]).transactions).toBeGreaterThanOrEqual(200);
  }, 90_000);
});
