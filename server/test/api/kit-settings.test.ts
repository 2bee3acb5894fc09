/**
 * Issue 33 items 1 and 2, as a newcomer meets them: the service and every `kit` command read one
 * settings file; `kit` finds the running service (DATA_DIR/service.json) and refuses to act on
 * another database or port; `kit reconcile` reads the sandbox's bills in development with no
 * setting; a day that could not be read is taken up again by the service; and a fresh start's
 * daily run logs no error-looking `tradebill … 400` lines.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KitClient } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { runKitCommand, startServiceProcess, type ServiceProcess } from '../support/process';
import { addDays, chinaDate } from '../../src/reconciliation/china-day';
import { waitFor } from '../support/wait';

describeEachBackend('the settings file and the running service', (backend) => {
  // A service process and several `kit` commands one after another: minutes on a busy machine.
  jest.setTimeout(180_000);
  let service: ServiceProcess | undefined;
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });

  it('are shared by the service and kit; kit refuses another database or port, and reconciles the sandbox in development', async () => {
    const { KIT_ENV_FILE: _off, ...env } = backend.env();
    // Where the data is, which database and how often a failed day is retried: in the file only.
    const file = path.join(env.DATA_DIR!, 'kit.env');
    fs.writeFileSync(
      file,
      `${Object.entries({ ...env, RECONCILE_RETRY_SCHEDULE: '1s' })
        .map(([k, v]) => `${k}=${v}`)
        .join('\n')}\n`,
    );
    const settings = { KIT_ENV_FILE: file };

    // A fresh start reconciles the two previous days at once (RECONCILE_AT passed): days without a bill, for each
    // channel with one (the social platform's, and Alipay's that the sandbox plays).
    service = await startServiceProcess({ ...settings, RECONCILE_AT: '00:00' });
    await waitFor(() => ((service!.output().match(/day reconciled/g) ?? []).length >= 4 ? true : undefined), 'the daily run');
    const tradeBillLines = service
      .output()
      .split('\n')
      .filter((l) => l.includes('tradebill'));
    expect(tradeBillLines.length).toBeGreaterThan(0);
    for (const line of tradeBillLines) {
      expect(line).not.toMatch(/"status":400/);
      expect(JSON.parse(line).level).toBeLessThan(40);
    }

    // The kit command, given the settings file only, works on the service's database.
    const created = await runKitCommand(['app', 'create', '--name', 'backend'], settings);
    expect(created.code).toBe(0);
    const app = JSON.parse(created.stdout) as { appId: string; appSecret: string };
    const client = new KitClient({ baseUrl: service.url, ...app });
    expect((await client.reconciliations()).data.reports.map((r) => r.state)).toEqual(['done', 'done', 'done', 'done']);

    // Reconciling in development needs no setting: the sandbox's bills, through the running service.
    const today = chinaDate(Date.now());
    const run = await runKitCommand(['reconcile', '--date', today], settings);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // One report per line, one per channel with a bill.
    expect(
      run.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      expect.objectContaining({ date: today, channel: 'SocialNative', state: 'done', differences: [] }),
      expect.objectContaining({ date: today, channel: 'Alipay', state: 'done', differences: [] }),
    ]);

    // Another database, or another port, than the running service's: said, both named, and refused.
    const otherDb = await runKitCommand(['app', 'create'], { ...settings, DATABASE_URL: 'postgres://someone@127.0.0.1:1/elsewhere' });
    expect(otherDb.code).toBe(1);
    expect(otherDb.stdout).toBe('');
    expect(otherDb.stderr).toContain(`refused: a service is running on this DATA_DIR (pid ${service.child.pid}, ${service.url}`);
    expect(otherDb.stderr).toMatch(backend.name === 'sqlite' ? /works on the database sqlite .*kit\.sqlite;/ : /works on the database postgresql .* schema t_/);
    expect(otherDb.stderr).toContain('this command would work on postgresql someone@127.0.0.1:1/elsewhere schema');
    expect(otherDb.stderr).toContain(file);
    const port = Number(new URL(service.url).port);
    const otherPort = await runKitCommand(['demo', 'create'], { ...settings, PORT: String(port + 1) });
    expect(otherPort.code).toBe(1);
    expect(otherPort.stderr).toContain(`the service listens on port ${port} (${service.url}); this command was given PORT=${port + 1}`);
    expect((await client.reconciliations()).data.reports).toHaveLength(6);

    // With the service stopped, a day cannot be read (the sandbox is the service's): a clear report, and the day is failed.
    expect(await service.stop()).toBe(0);
    service = undefined;
    const day = addDays(today, -5);
    const failed = await runKitCommand(['reconcile', '--date', day, '--channel', 'SocialNative'], settings);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({ date: day, state: 'failed', error: expect.stringContaining('no service is running on') });
    expect(failed.stderr).toContain(`${day} could not be reconciled with the SocialNative bill`);
    expect(failed.stderr).toContain("the service's daily job tries it again");

    // The service, started again (no daily schedule this time), takes the failed day up on its own.
    service = await startServiceProcess(settings);
    const again = new KitClient({ baseUrl: service.url, ...app });
    const done = await waitFor(async () => {
      const r = (await again.reconciliations()).data.reports.find((x) => x.date === day);
      return r?.state === 'done' ? r : undefined;
    }, 'the failed day retried');
    expect(done).toMatchObject({ date: day, channel: 'SocialNative', state: 'done' });
  }, 180_000);
});
