/** The service as operators run it: a separate process, the kit command, health and graceful shutdown. */
import fs from 'node:fs';
import path from 'node:path';
import { KitClient } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { createMerchants } from '../support/kit';
import { SOCIAL_PARAMS, sandboxPost, startReceiver } from '../support/payments';
import { runKitCommand, startServiceProcess } from '../support/process';
import { waitFor } from '../support/wait';

describeEachBackend('service process and kit command', (backend) => {
  it('kit app create prints one JSON line that works against a running service, and SIGTERM releases held calls', async () => {
    const env = backend.env();
    // A hold far longer than the test: only the stop can answer the held call below.
    const svc = await startServiceProcess({ ...env, WAIT_FOR_FINISH_HOLD: '55s' });
    try {
      const health = await fetch(`${svc.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', database: 'ok' });

      const created = await runKitCommand(['app', 'create'], env);
      expect(created.code).toBe(0);
      const lines = created.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const creds = JSON.parse(lines[0]);
      expect(Object.keys(creds).sort()).toEqual(['appId', 'appSecret']);

      const client = new KitClient({ baseUrl: svc.url, ...creds });
      const { subId } = await createMerchants(client, creds.appId);
      const order = await client.createPrepay({ subMerchantId: subId, totalAmount: '4.20' });

      const listed = await runKitCommand(['app', 'list'], env);
      expect(listed.stdout).toContain(creds.appId);
      expect(listed.stdout).not.toContain(creds.appSecret);

      // A held call is answered with the current state on SIGTERM instead of being cut off.
      const held = client.prepayDetail(order.prepayId, { wait: true });
      await waitFor(async () => /^kit_wait_for_finish_held 1$/m.test(await (await fetch(`${svc.url}/metrics`)).text()), 'the call held');
      const code = await svc.stop();
      expect(await held).toMatchObject({ status: 'active', totalAmount: '4.20' });
      expect(code).toBe(0);
      // Neither the secret nor any signature reached the log.
      expect(svc.output()).not.toContain(creds.appSecret);
      expect(svc.output()).not.toMatch(/_s=[0-9a-f]{64}/);
      expect(svc.output()).toContain('"reqId"');
    } finally {
      if (svc.child.exitCode === null) await svc.kill();
    }
  });

  it('kit explains unknown commands and missing arguments with a non-zero exit', async () => {
    const env = backend.env();
    const unknown = await runKitCommand(['app', 'explode'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command/);
    const missing = await runKitCommand(['merchant', 'contract'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/usage/);
    const notThere = await runKitCommand(['merchant', 'contract', 'PMnothere'], env);
    expect(notThere.code).toBe(1);
    expect(notThere.stderr).toMatch(/unknown_merchant/);
  });

  it('keeps its data files readable by their owner only', async () => {
    const env = backend.env();
    const svc = await startServiceProcess(env);
    try {
      await runKitCommand(['app', 'create'], env);
      // Every file 0600 and every folder 0700, the development key material of API v3 (pay-v3/) included.
      const entries = fs.readdirSync(env.DATA_DIR!, { recursive: true, encoding: 'utf8' }).map((f) => path.join(env.DATA_DIR!, f));
      const names = entries.map((f) => path.relative(env.DATA_DIR!, f));
      if (backend.name === 'sqlite') expect(names).toEqual(expect.arrayContaining(['kit.sqlite', 'kit.sqlite-wal', 'kit.sqlite-shm', 'master.key']));
      expect(names).toEqual(expect.arrayContaining([path.join('pay-v3', 'apiclient_key.pem'), path.join('pay-v3', 'platform_key.pem')]));
      for (const f of entries) {
        const want = fs.statSync(f).isDirectory() ? '700' : '600';
        expect([path.relative(env.DATA_DIR!, f), (fs.statSync(f).mode & 0o777).toString(8)]).toEqual([path.relative(env.DATA_DIR!, f), want]);
      }
      expect((fs.statSync(env.DATA_DIR!).mode & 0o077).toString(8)).toBe('0');
    } finally {
      await svc.stop();
    }
  });

  it('logs each failed callback delivery with the order, attempt, answer and next attempt time', async () => {
    const receiver = await startReceiver((_r, n) => (n === 1 ? { status: 500, body: 'down' } : {}));
    const env = backend.env();
    const svc = await startServiceProcess(env);
    try {
      const creds = JSON.parse((await runKitCommand(['app', 'create'], env)).stdout);
      const client = new KitClient({ baseUrl: svc.url, ...creds });
      const m = await createMerchants(client, creds.appId);
      await client.setPaymentParams(m.parentId, 'SocialNative', { ...SOCIAL_PARAMS, notifyCallbackUrl: `${receiver.url}/cb` });
      const { prepayId } = await client.createPrepay({ subMerchantId: m.subId, totalAmount: '1.00' });
      const { args } = await client.socialPayNative(prepayId);
      await sandboxPost(svc.url, '/pay', { codeUrl: args.code_url });
      await waitFor(() => receiver.received.length >= 2, 'the retried callback');
      const line = svc
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l))
        .find((l) => l.msg === 'callback delivery failed; will retry');
      expect(line).toMatchObject({
        level: 40,
        prepayId,
        status: 'finish',
        attempt: 1,
        httpStatus: 500,
        error: 'HTTP 500',
        nextAttemptAt: expect.stringMatching(/^\d{4}-/),
      });
    } finally {
      await svc.stop();
      await receiver.close();
    }
  });

  it('refuses to start with invalid configuration, saying which setting is wrong', async () => {
    await expect(startServiceProcess({ ...backend.env(), WAIT_FOR_FINISH_HOLD: '90s' })).rejects.toThrow(/WAIT_FOR_FINISH_HOLD/);
  });
});
