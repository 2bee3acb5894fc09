/** `npm run kit -- demo create` gives a newcomer something to log in with at /pos/, points to show, and says what to do next. */
import fs from 'node:fs';
import path from 'node:path';
import { KitClient } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit } from '../support/kit';
import { runKitCommand } from '../support/process';
import { runKit } from '../../src/kit/main';
import { sandboxPost } from '../support/payments';

describeEachBackend('kit demo create', (backend) => {
  it('creates an app, merchants and a points balance, prints one JSON line on stdout and the next steps on stderr', async () => {
    const env = backend.env();
    const kit = await startTestKit(backend, env);
    try {
      // As an operator runs it: its own process next to the running service (one SQLite connection per process),
      // with no PORT: it finds the service's real port (a free one here) in DATA_DIR/service.json.
      const run = await runKitCommand(['demo', 'create', '--password', 'demo-password-1'], env);
      expect(run.code).toBe(0);
      // Scripts read stdout: exactly one JSON line.
      const lines = run.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const demo = JSON.parse(lines[0]);
      expect(demo).toMatchObject({
        parentMerchantId: expect.stringMatching(/^PM/),
        subMerchantId: expect.stringMatching(/^SM/),
        password: 'demo-password-1',
        points: { tokenId: 'DEMO', tokenAppId: demo.appId, userAppId: demo.appId, userId: 'demo-user', balance: '100.00000' },
      });

      // People read stderr: where to log in, with what, how to pay and what to try on the points screen.
      expect(kit.url).not.toContain(':8080');
      expect(run.stderr).toContain('Next steps');
      expect(run.stderr).not.toContain('No service is running');
      expect(run.stderr).toContain(`${kit.url}/pos/ and log in as ${demo.subMerchantId} with the password demo-password-1`);
      expect(run.stderr).toContain(`${kit.url}/sandbox/pay`);
      expect(run.stderr).toContain(`${kit.url}/sandbox/alipay/pay`);
      expect(run.stderr).toContain('customer demo-user (typed or scanned) and point type DEMO: a balance of 100 points');
      expect(run.stderr).toContain(`log in as ${demo.parentMerchantId} with the same password`);
      // The shop's callbacks go to the development receiver of the service that runs, on its real port.
      expect(await kit.runtime.services.merchants.effectivePaymentParams(demo.subMerchantId, 'SocialNative')).toMatchObject({
        notifyCallbackUrl: `${kit.url}/sandbox/receiver`,
      });

      const client = new KitClient({ baseUrl: kit.url, appId: demo.appId, appSecret: demo.appSecret });
      expect(await client.login(demo.subMerchantId, demo.password)).toMatchObject({ displayName: 'Demo Shop', parentMerchantId: demo.parentMerchantId });
      const order = await client.createPrepay({ subMerchantId: demo.subMerchantId, totalAmount: '9.90' });
      expect((await client.socialPayNative(order.prepayId)).args.code_url).toBeTruthy();
      // Both wallets: the same order has an Alipay code too, and the sandbox's Alipay pays it.
      expect(await kit.runtime.services.merchants.effectivePaymentParams(demo.subMerchantId, 'Alipay')).toMatchObject({
        appAuthToken: expect.any(String),
        notifyCallbackUrl: `${kit.url}/sandbox/receiver`,
      });
      const alipay = await client.alipayNative(order.prepayId);
      const paid = await sandboxPost(kit.url, '/alipay/pay', { qrCode: alipay.args.qr_code });
      expect(paid).toMatchObject({ status: 200, body: { status: 'success' } });
      expect((await client.waitForPayment(order.prepayId)).status).toBe('finish');
      expect((await kit.runtime.services.payments.state(order.prepayId)).channelOrders.find((c) => c.state === 'paid')).toMatchObject({ channel: 'Alipay' });
      // The balance is on the chain already: the command sealed its block.
      const { tokenId, tokenAppId, userAppId, userId } = demo.points;
      expect((await client.pointsBalance({ tokenId, tokenAppId, userAppId, userId })).data.balance).toBe('100.00000');
    } finally {
      await kit.close();
    }
  });

  it('writes its result to --out FILE (readable only by its owner), so the README tour needs no npm -s', async () => {
    const env = backend.env();
    const file = path.join(env.DATA_DIR!, 'demo.json');
    const run = await runKitCommand(['demo', 'create', '--out', file, '--callback', 'https://merchant.example/cb'], env, { silent: false });
    expect(run.code).toBe(0);
    // No service runs on this DATA_DIR: the command says where the callbacks will go, and to start it there.
    expect(run.stderr).toContain(`No service is running on ${env.DATA_DIR} yet`);
    expect(run.stdout).not.toContain('appSecret');
    expect(run.stderr).toContain(`Wrote the ids, the app secret and the password to ${file}.`);
    const demo = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(demo).toMatchObject({ appId: expect.any(String), appSecret: expect.any(String), subMerchantId: expect.stringMatching(/^SM/) });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const kit = await startTestKit(backend, env);
    try {
      expect(await kit.runtime.services.merchants.effectivePaymentParams(demo.subMerchantId, 'SocialNative')).toMatchObject({
        notifyCallbackUrl: 'https://merchant.example/cb',
      });
    } finally {
      await kit.close();
    }
  });

  it('refuses an unknown flag with its usage line and creates nothing', async () => {
    const env = backend.env();
    const said: string[] = [];
    const printed: string[] = [];
    const errors = jest.spyOn(console, 'error').mockImplementation((l: string) => void said.push(l));
    try {
      expect(await runKit(['demo', 'create', '--pasword', 'x'], env, (l) => printed.push(l))).toBe(2);
    } finally {
      errors.mockRestore();
    }
    expect(printed).toEqual([]);
    expect(said.join('\n')).toMatch(/Unknown option '--pasword'[\s\S]*usage: npm run kit -- demo create \[--password PW\] \[--callback URL\]/);
  });

  it('without the sandbox asks for the callback URL (there is no development receiver to point the shop at)', async () => {
    const env = { ...backend.env(), SANDBOX_ENABLED: '0' };
    const said: string[] = [];
    const printed: string[] = [];
    const errors = jest.spyOn(console, 'error').mockImplementation((l: string) => void said.push(l));
    try {
      expect(await runKit(['demo', 'create'], env, (l) => printed.push(l))).toBe(2);
    } finally {
      errors.mockRestore();
    }
    expect(printed).toEqual([]);
    expect(said.join('\n')).toMatch(/no development receiver: give the callback URL \(--callback URL\)/);
  });
});
