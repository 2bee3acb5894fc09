/**
 * API v3 key modes through real HTTP against the sandbox, with the settings a real merchant account
 * gives (here the development material's values, so the sandbox plays the matching platform): an
 * answer signed by a key the kit does not trust never yields a `code_url` or arguments; certificate
 * mode downloads the platform certificate and verifies answers and notifications with it, and takes
 * a rotated certificate when a notification names it; a kit in public-key mode takes what a
 * platform in the middle of the switch signs with its certificate (downloaded then, its list signed
 * with the certificate or with the public key the request named), and refuses a certificate serial
 * when the merchant never had certificates.
 */
import { createCipheriv, generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { encryptCertificateEntry } from '../../src/payments/providers/social-v3/certificates';
import { describeEachBackend, type Backend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { newOrder, payApi, payByCode, payFixture, sandboxOpenId, sandboxPost, sandboxPrepayId } from '../support/payments';
import { platformHeaders, startPlatformProxy } from '../support/platform-proxy';
import { sandboxOf, devV3Material, platformCertificate } from '@kit/sandbox';
import { waitFor } from '../support/wait';

const ENV = { SANDBOX_NOTIFY_SCHEDULE: '100ms,200ms,300ms', PAY_GATEWAY_TIMEOUT: '3s' };

/** A kit configured like a real merchant account: the settings of the development material in its DATA_DIR, changed by `patch`. */
async function configuredKit(
  backend: Backend,
  patch: (s: Record<string, string | undefined>) => Record<string, string | undefined>,
  more: NodeJS.ProcessEnv = {},
): Promise<TestKit> {
  const env = backend.env();
  const settings = devV3Material(env.DATA_DIR!).settings;
  const configured = Object.fromEntries(Object.entries(patch({ ...settings })).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return startTestKit(backend, { ...ENV, ...more, ...env, ...configured });
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

    test("a service whose gateway is another instance's sandbox, given no keys, makes none: its payments answer 503 naming the settings", async () => {
      const platform = await startPlatformProxy();
      const kit = await startTestKit(backend, { ...ENV, PAY_GATEWAY_URL: platform.url });
      platform.target = `${kit.url}/sandbox`;
      try {
        const f = await payFixture(kit);
        const native = await payApi.native(f.client, await newOrder(f));
        expect(native.httpStatus).toBe(503);
        expect(native.body).toMatchObject({ status: 'fail', error: 'channel_unavailable' });
        for (const setting of ['PAY_SP_PRIVATE_KEY', 'PAY_SP_CERT_SERIAL', 'PAY_V3_KEY', 'PAY_PLATFORM_PUBLIC_KEY']) expect(native.body.msg).toContain(setting);
      } finally {
        await kit.close();
        await platform.close();
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
        pem: platformCertificate(bKey, {
          commonName: 'Rotated platform certificate',
          serial: '7A11CE',
          notBefore: Date.now() - 60_000,
          notAfter: Date.now() + 86_400_000,
        }),
        serial: '7A11CE',
      };
      let listed = [a];
      let downloads = 0;
      const platform = await startPlatformProxy();
      platform.intercept = (c) => {
        if (c.method !== 'GET' || c.url !== '/v3/certificates') return undefined;
        downloads++;
        const data = listed.map((x) => encryptCertificateEntry(x.pem, dev.settings.PAY_V3_KEY, randomBytes(6).toString('hex')));
        return { status: 200, body: { data }, signedBy: { key: a.key, serial: a.serial } };
      };
      const { PAY_PLATFORM_PUBLIC_KEY: _k, PAY_PLATFORM_PUBLIC_KEY_ID: _i, ...certificateMode } = dev.settings;
      const kit = await startTestKit(backend, { ...ENV, ...env, ...certificateMode, PAY_GATEWAY_URL: platform.url });
      platform.target = `${kit.url}/sandbox`;
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
            headers: { 'content-type': 'application/json', ...platformHeaders(key, serial, body) },
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
        await platform.close();
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

    test('public-key mode, a merchant who never had certificates: answers naming a certificate serial are refused (/v3/certificates answers 404)', async () => {
      const kit = await configuredKit(backend, (s) => s);
      try {
        await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate', v3Certificates: 'none' });
        const f = await payFixture(kit);
        const native = await payApi.native(f.client, await newOrder(f));
        expect(native.httpStatus).toBe(502);
        expect(native.body).toMatchObject({ error: 'channel_error', msg: expect.stringMatching(/no platform key with serial .*HTTP 404/) });
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

    test('public-key mode, the certificate list signed with the public key the request named (sandbox v3CertificatesSigner: "requested"): the list is taken, and answers and notifications signed under its certificate are accepted', async () => {
      const kit = await configuredKit(backend, (s) => s, { SANDBOX_DUPLICATE_NOTIFY: '0' });
      try {
        // Everything but the list names the certificate: the first answer makes the kit download
        // the list, which it asks for naming its public-key id, and the platform signs it with that key.
        await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate', v3CertificatesSigner: 'requested' });
        const f = await payFixture(kit);
        const prepayId = await newOrder(f, '5.60');
        const { codeUrl } = await payByCode(kit, f, prepayId);
        expect(codeUrl).toMatch(/^weixin:\/\//);
        expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
        // The payment notification, signed under the downloaded certificate, acknowledged at its first sending.
        const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
        const notifier = sandboxOf(kit.runtime.services)!.notifier;
        const ref = await sandboxPrepayId(kit, co);
        await waitFor(async () => (await notifier.notificationsFor(ref)).every((n) => n.state !== 'pending'), 'the payment notification answered');
        expect(await notifier.notificationsFor(ref)).toEqual([expect.objectContaining({ kind: 'pay', state: 'acked', attempts: 1 })]);
        expect((await kit.runtime.services.callbacks.history(prepayId)).map((c) => c.status)).toEqual(['finish']);
      } finally {
        await kit.close();
      }
    });

    test('a merchant in the middle of the switch (sandbox v3Serial: "switching"): a kit with the public key pays, refunds, queries and settles notifications signed with either key', async () => {
      const kit = await configuredKit(backend, (s) => s, {
        PAYMENT_QUERY_SCHEDULE: '300ms,300ms,500ms,1s',
        SANDBOX_REFUND_DELAY: '200ms',
        // Every sending takes a turn: no duplicates, so that the turns below are the ones counted.
        SANDBOX_DUPLICATE_NOTIFY: '0',
      });
      try {
        // By turns, the certificate first: the answers to the kit's requests (which name the
        // public-key id) and, separately, the notifications. The first answer (placing the order)
        // names the certificate, so the kit downloads /v3/certificates to verify it.
        expect((await sandboxPost(kit.url, '/faults', { v3Serial: 'switching' })).body.faults).toMatchObject({ v3Serial: 'switching' });
        const f = await payFixture(kit);
        const token = (await f.client.login(f.subId, f.pw)).loginToken;
        const notifier = sandboxOf(kit.runtime.services)!.notifier;

        // Paid and refunded by notifications: the payment's signed with the certificate, the refund's with the public key.
        const byNotification = await newOrder(f, '3.10');
        // The clock stands still: the follow-up's query cannot be due, so the notification settles it.
        kit.clock.freeze();
        try {
          await payByCode(kit, f, byNotification);
          expect((await f.client.waitForPayment(byNotification)).status).toBe('finish');
        } finally {
          kit.clock.resume();
        }
        const co = (await kit.runtime.services.payments.state(byNotification)).channelOrders[0];
        expect(co.paid_via).toBe('notification');
        // Acknowledged at the first sending: the certificate's signature verified. (The sandbox
        // records the acknowledgement after the kit's answer, which may come after the order reads paid.)
        const sent = async (ref: string) => {
          await waitFor(async () => (await notifier.notificationsFor(ref)).every((n) => n.state !== 'pending'), `the notification for ${ref} answered`);
          return notifier.notificationsFor(ref);
        };
        expect(await sent(await sandboxPrepayId(kit, co))).toEqual([expect.objectContaining({ kind: 'pay', state: 'acked', attempts: 1 })]);
        expect(await f.client.refund(byNotification, token)).toEqual({ version: 1, status: 'success' });
        await waitFor(async () => (await f.client.prepayDetail(byNotification)).status === 'refunded', 'refunded by notification');
        const refund = (await kit.runtime.services.payments.state(byNotification)).refund!;
        // The refund may read refunded through the kit's refund query before its notification is sent.
        expect(await sent(refund.refund_id!)).toEqual([expect.objectContaining({ kind: 'refund', state: 'acked', attempts: 1 })]);

        // Paid and refunded by the kit's queries (their notifications lost), answered with either key.
        await sandboxPost(kit.url, '/faults', { v3Serial: 'switching', payNotifications: 'drop', refundNotifications: 'drop' });
        const byQuery = await newOrder(f, '4.20');
        await payByCode(kit, f, byQuery);
        expect((await f.client.waitForPayment(byQuery)).status).toBe('finish');
        expect((await kit.runtime.services.payments.state(byQuery)).channelOrders[0].paid_via).toBe('query');
        expect(await f.client.refund(byQuery, token)).toEqual({ version: 1, status: 'success' });
        await waitFor(async () => (await f.client.prepayDetail(byQuery)).status === 'refunded', 'refunded by query');

        for (const prepayId of [byNotification, byQuery])
          expect((await kit.runtime.services.callbacks.history(prepayId)).map((c) => c.status)).toEqual(['finish', 'refunded']);
      } finally {
        await kit.close();
      }
    });
  },
  { protocols: ['v3'] },
);
