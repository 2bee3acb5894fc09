/**
 * The service is killed (SIGKILL) after a payment committed and while its callback is in flight;
 * after a restart on the same database the callback still arrives. The service runs as a child
 * process exactly as `npm run server` starts it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { KitClient, verifyCallback } from '@kit/shared';
import { loadConfig } from '../../src/configuration';
import { createLogger } from '../../src/logger';
import { openServices } from '../../src/runtime';
import { describeEachBackend } from '../support/backends';
import { TEST_ENV, createMerchants } from '../support/kit';
import { SOCIAL_PARAMS, sandboxPost, startReceiver } from '../support/payments';
import { waitFor } from '../support/wait';

const ROOT = path.resolve(__dirname, '../../..');

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function startChild(env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', () => undefined);
  return child;
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`)).ok;
  } catch {
    return false;
  }
}

const exited = (child: ChildProcess) => new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));

describeEachBackend('callbacks survive a killed service', (backend) => {
  jest.setTimeout(90_000);

  test('SIGKILL between the payment and its callback: the callback arrives after the restart', async () => {
    let answerOk = false;
    // The first attempt hangs: the service is killed while it waits for the answer.
    const receiver = await startReceiver(() => (answerOk ? { body: 'OK' } : { hang: true }));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...TEST_ENV,
      ...backend.env(),
      PORT: String(port),
      CALLBACK_TIMEOUT: '1s',
      NODE_ENV: 'test',
    };
    const url = `http://127.0.0.1:${port}`;
    let child = startChild(env);
    try {
      await waitFor(() => healthy(url), 'the service to start');

      // An app, made the way an operator would (the kit command opens the same database).
      const cfg = loadConfig(env);
      const admin = await openServices(cfg, createLogger('silent'));
      const creds = await admin.services.apps.create('restart-test');
      await admin.db.close();

      const client = new KitClient({ baseUrl: url, ...creds });
      const m = await createMerchants(client, creds.appId);
      await client.setPaymentParams(m.parentId, 'SocialNative', { ...SOCIAL_PARAMS, notifyCallbackUrl: `${receiver.url}/cb` });
      const { prepayId } = await client.createPrepay({ subMerchantId: m.subId, totalAmount: '9.99' });
      const { args } = await client.socialPayNative(prepayId);
      expect((await sandboxPost(url, '/pay', { codeUrl: args.code_url })).status).toBe(200);
      expect((await client.waitForPayment(prepayId)).status).toBe('finish');
      await waitFor(() => receiver.received.length >= 1, 'the first callback attempt');

      child.kill('SIGKILL');
      await exited(child);
      answerOk = true;
      const before = receiver.received.length;

      child = startChild(env);
      await waitFor(() => healthy(url), 'the service to restart');
      const delivered = await waitFor(() => receiver.received.slice(before)[0], 'the callback after the restart');
      const event = verifyCallback({ url: delivered.url, rawBody: delivered.body }, creds.appSecret, { appId: creds.appId });
      expect(event).toMatchObject({ prepayId, status: 'finish', subMerchantId: m.subId, merchantId: m.parentId });
      expect((await client.prepayDetail(prepayId)).status).toBe('finish');
    } finally {
      child.kill('SIGKILL');
      await exited(child);
      await receiver.close();
    }
  });
});
