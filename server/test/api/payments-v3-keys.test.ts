/**
 * API v3 key modes through real HTTP against the sandbox, with the settings a real merchant account
 * gives (here the development material's values, so the sandbox plays the matching platform): an
 * answer signed by a key the kit does not trust never yields a `code_url` or arguments; certificate
 * mode downloads the platform certificate and verifies answers and notifications with it, and takes
 * a rotated certificate when a notification names it; a kit in public-key mode refuses a platform
 * that signs with a certificate it was never told of.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCipheriv, generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import { devV3Material } from '../../src/payments/channels/social-native/v3/dev-credentials';
import { encryptCertificateEntry } from '../../src/payments/channels/social-native/v3/certificates';
import { selfSignedCertificate } from '../../src/payments/channels/social-native/v3/self-signed';
import { describeEachBackend, type Backend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { newOrder, payApi, payByCode, payFixture, sandboxOpenId, sandboxPost } from '../support/payments';

const ENV = { SANDBOX_NOTIFY_SCHEDULE: '100ms,200ms,300ms', PAY_GATEWAY_TIMEOUT: '3s' };

/** A kit configured like a real merchant account: the settings of the development material in its DATA_DIR, changed by `patch`. */
async function configuredKit(backend: Backend, patch: (s: Record<string, string | undefined>) => Record<string, string | undefined>): Promise<TestKit> {
  const env = backend.env();
  const settings = devV3Material(env.DATA_DIR!).settings;
  const configured = Object.fromEntries(Object.entries(patch({ ...settings })).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return startTestKit(backend, { ...ENV, ...env, ...configured });
}

describeEachBackend(
  'API v3 key modes',
  (backend) => {
    test('answers signed by a key the kit does not trust never yield a code_url or arguments, and nothing is left payable', async () => {
      const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'pem', type: 'spki' }).toString();
      // The right key id, the wrong key: every answer fails verification.
      const kit = await configuredKit(backend, (s) => ({ ...s, PAY_PLATFORM_PUBLIC_KEY: stranger }));
      try {
        const f = await payFixture(kit);
        const prepayId = await newOrder(f);
        const native = await payApi.native(f.client, prepayId);
        expect(native.httpStatus).toBe(502);
        expect(native.body).toMatchObject({ status: 'fail', error: 'channel_error' });
        expect(JSON.stringify(native.body)).not.toContain('code_url');
        const mp = { appid: kit.runtime.config.MP_APPID!, secret: kit.runtime.config.MP_SECRET! };
        const mini = await payApi.mini(f.client, prepayId, await sandboxOpenId(kit.url, 'alice', mp));
        expect(mini.httpStatus).toBe(502);
        expect(mini.body.args).toBeUndefined();
        const orders = (await kit.runtime.services.payments.state(prepayId)).channelOrders;
        expect(orders.every((co) => co.state !== 'open' && co.code_url === null && co.channel_prepay_id === null)).toBe(true);
        expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      } finally {
        await kit.close();
      }
    });

    test('certificate mode: no platform key configured; the certificate is downloaded and verifies answers and notifications', async () => {
      const kit = await configuredKit(backend, (s) => ({ ...s, PAY_PLATFORM_PUBLIC_KEY: undefined, PAY_PLATFORM_PUBLIC_KEY_ID: undefined }));
      try {
        // The platform names its certificate's serial, as for accounts without a platform public key.
        expect((await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate' })).status).toBe(200);
        const f = await payFixture(kit);
        const prepayId = await newOrder(f, '2.50');
        const { codeUrl } = await payByCode(kit, f, prepayId);
        expect(codeUrl).toMatch(/^weixin:\/\//);
        expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
        // Paid by the notification, verified with the downloaded certificate.
        expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0].paid_via).toBe('notification');
        expect((await kit.runtime.services.callbacks.history(prepayId)).map((c) => c.status)).toEqual(['finish']);
      } finally {
        await kit.close();
      }
    });

    test('certificate rotation: a notification signed by a new certificate makes the kit download the list once and take it', async () => {
      // A platform in front of the sandbox whose /v3/certificates answer the test controls (the
      // sandbox has one certificate); every other call goes through to the sandbox unchanged.
      const env = backend.env();
      const dev = devV3Material(env.DATA_DIR!);
      const a = { key: dev.platform.privateKey, pem: dev.platform.certificatePem, serial: dev.platform.certificateSerial };
      const bKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const b = {
        key: bKey,
        pem: selfSignedCertificate(bKey, {
          commonName: 'Rotated platform certificate',
          serial: '7A11CE',
          notBefore: Date.now() - 60_000,
          notAfter: Date.now() + 86_400_000,
        }),
        serial: '7A11CE',
      };
      let listed = [a];
      let downloads = 0;
      let sandboxUrl = '';
      const signed = (key: KeyObject, serial: string, body: string) => {
        const timestamp = String(Math.floor(Date.now() / 1000));
        const nonce = randomBytes(16).toString('hex');
        const signature = sign('sha256', Buffer.from(`${timestamp}\n${nonce}\n${body}\n`), key).toString('base64');
        return { 'wechatpay-timestamp': timestamp, 'wechatpay-nonce': nonce, 'wechatpay-signature': signature, 'wechatpay-serial': serial };
      };
      const platform = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          void (async () => {
            if (req.method === 'GET' && req.url === '/v3/certificates') {
              downloads++;
              const body = JSON.stringify({ data: listed.map((c) => encryptCertificateEntry(c.pem, dev.settings.PAY_V3_KEY, randomBytes(6).toString('hex'))) });
              res.writeHead(200, { 'content-type': 'application/json', 'request-id': randomUUID(), ...signed(a.key, a.serial, body) });
              return res.end(body);
            }
            const headers: Record<string, string> = {};
            for (const h of ['authorization', 'content-type', 'accept', 'wechatpay-serial']) if (req.headers[h]) headers[h] = String(req.headers[h]);
            const body = Buffer.concat(chunks);
            const answer = await fetch(`${sandboxUrl}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined });
            const out: Record<string, string> = {};
            answer.headers.forEach((v, k) => {
              if (k === 'content-type' || k === 'request-id' || k.startsWith('wechatpay-')) out[k] = v;
            });
            res.writeHead(answer.status, out);
            res.end(Buffer.from(await answer.arrayBuffer()));
          })();
        });
      });
      await new Promise<void>((r) => platform.listen(0, '127.0.0.1', r));
      const { PAY_PLATFORM_PUBLIC_KEY: _k, PAY_PLATFORM_PUBLIC_KEY_ID: _i, ...certificateMode } = dev.settings;
      const kit = await startTestKit(backend, {
        ...ENV,
        ...env,
        ...certificateMode,
        PAY_GATEWAY_URL: `http://127.0.0.1:${(platform.address() as AddressInfo).port}`,
      });
      sandboxUrl = `${kit.url}/sandbox`;
      try {
        await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate' });
        const f = await payFixture(kit);
        const prepayId = await newOrder(f, '4.56');
        // The first call downloads the list (certificate A) and verifies the answer with it.
        expect((await f.client.socialPayNative(prepayId)).args.code_url).toMatch(/^weixin:\/\//);
        expect(downloads).toBe(1);

        // The platform rotates: B is listed beside A and signs the next notification.
        listed = [a, b];
        const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
        const m = JSON.parse(co.merchant_json);
        const resource = {
          sp_appid: m.appid,
          sp_mchid: m.mch_id,
          sub_mchid: m.sub_mch_id,
          out_trade_no: co.out_trade_no,
          transaction_id: `4200${Date.now()}`,
          trade_type: 'NATIVE',
          trade_state: 'SUCCESS',
          success_time: new Date(Date.now() + 8 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, '+08:00'),
          payer: { sp_openid: 'oRotation' },
          amount: { total: co.total_cents, payer_total: co.total_cents, currency: 'CNY', payer_currency: 'CNY' },
        };
        const notify = async (key: KeyObject, serial: string) => {
          const nonce = randomBytes(6).toString('hex');
          const c = createCipheriv('aes-256-gcm', Buffer.from(dev.settings.PAY_V3_KEY, 'utf8'), Buffer.from(nonce, 'utf8'));
          c.setAAD(Buffer.from('transaction'));
          const ciphertext = Buffer.concat([c.update(JSON.stringify(resource), 'utf8'), c.final(), c.getAuthTag()]).toString('base64');
          const body = JSON.stringify({
            id: randomUUID(),
            create_time: resource.success_time,
            resource_type: 'encrypt-resource',
            event_type: 'TRANSACTION.SUCCESS',
            resource: { original_type: 'transaction', algorithm: 'AEAD_AES_256_GCM', ciphertext, associated_data: 'transaction', nonce },
          });
          const res = await fetch(`${kit.url}/pay-notify/social/pay`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...signed(key, serial, body) },
            body,
          });
          return res.status;
        };
        expect(await notify(b.key, b.serial)).toBe(204);
        expect(downloads).toBe(2);
        expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');

        // A serial nobody listed is refused, and does not make the kit download the list again at once.
        const cKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
        expect(await notify(cKey, 'C0FFEE')).toBe(400);
        expect(downloads).toBe(2);
        expect((await kit.runtime.services.callbacks.history(prepayId)).map((x) => x.status)).toEqual(['finish']);
      } finally {
        await kit.close();
        platform.closeAllConnections();
        await new Promise<void>((r) => platform.close(() => r()));
      }
    });

    test('certificate rotation at the sandbox (fault v3Certificates: rotated): the kit fetches the list again and keeps paying', async () => {
      const kit = await configuredKit(backend, (s) => ({ ...s, PAY_PLATFORM_PUBLIC_KEY: undefined, PAY_PLATFORM_PUBLIC_KEY_ID: undefined }));
      try {
        await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate' });
        const f = await payFixture(kit);
        const before = await newOrder(f, '1.10');
        await payByCode(kit, f, before);
        expect((await f.client.waitForPayment(before)).status).toBe('finish');
        // The platform moves to a new certificate: its answers and notifications now name it.
        await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate', v3Certificates: 'rotated' });
        const after = await newOrder(f, '2.20');
        await payByCode(kit, f, after);
        expect((await f.client.waitForPayment(after)).status).toBe('finish');
        expect((await kit.runtime.services.payments.state(after)).channelOrders[0].paid_via).toBe('notification');
      } finally {
        await kit.close();
      }
    });

    test('public-key mode refuses answers naming a certificate serial it was never given', async () => {
      const kit = await configuredKit(backend, (s) => s);
      try {
        await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate' });
        const f = await payFixture(kit);
        const native = await payApi.native(f.client, await newOrder(f));
        expect(native.httpStatus).toBe(502);
        expect(native.body.args).toBeUndefined();
        // Back to the public-key id: the same kit pays.
        await sandboxPost(kit.url, '/faults', {});
        const prepayId = await newOrder(f);
        await payByCode(kit, f, prepayId);
        expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      } finally {
        await kit.close();
      }
    });
  },
  { protocols: ['v3'] },
);
