/**
 * API v3 notifications through real HTTP: the test plays the platform with node's crypto alone
 * (SHA256-with-RSA over `TIMESTAMP\nNONCE\nBODY\n`, AEAD_AES_256_GCM under the APIv3 key), using the
 * platform key the development material holds. Genuine ones settle once (204); forged, tampered,
 * stale, probing, unknown-serial, wrong-key and mismatching ones are refused with
 * `{"code":"FAIL"}` and change nothing. Then the sandbox's own notifications: duplicates and probes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createCipheriv, createPrivateKey, generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit, sandboxTables } from '../support/kit';
import { newOrder, payByCode, payFixture, sandboxPost, type PayFixture } from '../support/payments';
import { sandboxOf } from '@kit/sandbox';
import { waitFor } from '../support/wait';

interface Platform {
  key: KeyObject;
  keyId: string;
  apiV3Key: string;
}

/** The platform side of the development material, read from its files in DATA_DIR/pay-v3/. */
function platformOf(kit: TestKit): Platform {
  const dir = path.join(kit.runtime.config.DATA_DIR, 'pay-v3');
  const ids = JSON.parse(fs.readFileSync(path.join(dir, 'ids.json'), 'utf8')) as { platformPublicKeyId: string; apiV3Key: string };
  return { key: createPrivateKey(fs.readFileSync(path.join(dir, 'platform_key.pem'))), keyId: ids.platformPublicKeyId, apiV3Key: ids.apiV3Key };
}

function encrypt(plain: string, apiV3Key: string, associated: string) {
  const nonce = randomBytes(6).toString('hex');
  const c = createCipheriv('aes-256-gcm', Buffer.from(apiV3Key, 'utf8'), Buffer.from(nonce, 'utf8'));
  c.setAAD(Buffer.from(associated, 'utf8'));
  const ciphertext = Buffer.concat([c.update(plain, 'utf8'), c.final(), c.getAuthTag()]).toString('base64');
  return { original_type: associated, algorithm: 'AEAD_AES_256_GCM', ciphertext, associated_data: associated, nonce };
}

const cst = (ms: number) => new Date(Math.floor(ms / 1000) * 1000 + 8 * 3_600_000).toISOString().replace('.000Z', '+08:00');

describeEachBackend(
  'API v3 notifications',
  (backend) => {
    let kit: TestKit;
    let f: PayFixture;
    let platform: Platform;

    beforeAll(async () => {
      kit = await startTestKit(backend, { SANDBOX_DUPLICATE_NOTIFY: '2', SANDBOX_NOTIFY_SCHEDULE: '100ms,100ms,100ms' });
      f = await payFixture(kit);
      // The first call makes the development material; the platform half is read from its files.
      await f.client.socialPayNative(await newOrder(f));
      platform = platformOf(kit);
    });
    afterAll(() => kit.close());

    interface Sending {
      eventType?: string;
      apiV3Key?: string;
      key?: KeyObject;
      serial?: string;
      timestamp?: number;
      signature?: string;
      tamper?: (body: string) => string;
    }

    /** Posts a notification as the platform would, with the faults `s` names. */
    const send = async (kind: 'pay' | 'refund', resource: object, s: Sending = {}) => {
      const associated = kind === 'pay' ? 'transaction' : 'refund';
      const body = JSON.stringify({
        id: randomUUID(),
        create_time: cst(Date.now()),
        resource_type: 'encrypt-resource',
        event_type: s.eventType ?? (kind === 'pay' ? 'TRANSACTION.SUCCESS' : 'REFUND.SUCCESS'),
        summary: kind === 'pay' ? '支付成功' : '退款成功',
        resource: encrypt(JSON.stringify(resource), s.apiV3Key ?? platform.apiV3Key, associated),
      });
      const timestamp = String(s.timestamp ?? Math.floor(Date.now() / 1000));
      const nonce = randomBytes(16).toString('hex');
      const signature = s.signature ?? sign('sha256', Buffer.from(`${timestamp}\n${nonce}\n${body}\n`), s.key ?? platform.key).toString('base64');
      const res = await fetch(`${kit.url}/pay-notify/social/${kind}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'wechatpay-timestamp': timestamp,
          'wechatpay-nonce': nonce,
          'wechatpay-signature': signature,
          'wechatpay-serial': s.serial ?? platform.keyId,
        },
        body: s.tamper ? s.tamper(body) : body,
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as { code?: string; message?: string }) : null };
    };

    /** The transaction resource for the order's open channel order, as the platform reports a payment. */
    const transaction = async (prepayId: string, patch: Record<string, unknown> = {}) => {
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
      const m = JSON.parse(co.merchant_json);
      return {
        sp_appid: m.appid,
        sp_mchid: m.mch_id,
        sub_mchid: m.sub_mch_id,
        out_trade_no: co.out_trade_no,
        transaction_id: `4200${Date.now()}`,
        trade_type: co.trade_type,
        trade_state: 'SUCCESS',
        trade_state_desc: '支付成功',
        bank_type: 'OTHERS',
        success_time: cst(Date.now()),
        payer: { sp_openid: 'oSomeone' },
        amount: { total: co.total_cents, payer_total: co.total_cents, currency: 'CNY', payer_currency: 'CNY' },
        ...patch,
      };
    };

    const unchanged = async (prepayId: string) => {
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0].state).toBe('open');
      expect(await kit.runtime.services.callbacks.history(prepayId)).toHaveLength(0);
    };

    test('a hand-made genuine notification is acknowledged with 204 and settles the order once; repeating it changes nothing', async () => {
      const prepayId = await newOrder(f);
      await f.client.socialPayNative(prepayId);
      const resource = await transaction(prepayId);
      expect(await send('pay', resource)).toEqual({ status: 204, body: null });
      const detail = await f.client.prepayDetail(prepayId);
      expect(detail.status).toBe('finish');
      expect(await send('pay', resource)).toEqual({ status: 204, body: null });
      expect(await f.client.prepayDetail(prepayId)).toEqual(detail);
      expect(await kit.runtime.services.callbacks.history(prepayId)).toHaveLength(1);
      expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0].transaction_id).toBe(resource.transaction_id);
    });

    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    test.each<[string, RegExp, (prepayId: string) => Promise<Sending & { patch?: Record<string, unknown> }>]>([
      ['a signature by another key (forged)', /bad_signature/, async () => ({ key: other })],
      ['a body changed after signing (tampered)', /bad_signature/, async () => ({ tamper: (b) => b.replace('"summary":"支付成功"', '"summary":"paid"') })],
      ['a timestamp 6 minutes old (stale)', /stale/, async () => ({ timestamp: Math.floor(Date.now() / 1000) - 360 })],
      ['a timestamp 6 minutes ahead', /stale/, async () => ({ timestamp: Math.floor(Date.now() / 1000) + 360 })],
      ['a WECHATPAY/SIGNTEST/ signature (a probe)', /probe/, async () => ({ signature: `WECHATPAY/SIGNTEST/${randomBytes(64).toString('base64')}` })],
      ['an unknown serial', /unknown_serial/, async () => ({ serial: 'PUB_KEY_ID_0199999999999999999999999999999999' })],
      ['a resource under another APIv3 key', /undecryptable/, async () => ({ apiV3Key: randomBytes(16).toString('hex') })],
      ['another event type', /unexpected_event/, async () => ({ eventType: 'TRANSACTION.CLOSED' })],
      ['a different amount', /total_fee/, async () => ({ patch: { amount: { total: 1, payer_total: 1, currency: 'CNY', payer_currency: 'CNY' } } })],
      ['another sub-merchant', /sub_mch_id/, async () => ({ patch: { sub_mchid: '9999999999' } })],
      ['an unknown out_trade_no', /unknown out_trade_no/, async () => ({ patch: { out_trade_no: 'NoSuchTradeNumber' } })],
      ['a trade state that is not SUCCESS', /trade_state NOTPAY/, async () => ({ patch: { trade_state: 'NOTPAY' } })],
    ])('a payment notification with %s is refused with {"code":"FAIL"} and changes nothing', async (_what, why, make) => {
      const prepayId = await newOrder(f, '12.34');
      await f.client.socialPayNative(prepayId);
      const { patch, ...sending } = await make(prepayId);
      const answer = await send('pay', await transaction(prepayId, patch), sending);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ code: 'FAIL', message: expect.stringMatching(why) });
      await unchanged(prepayId);
    });

    test('v2 XML on a v3 service is refused', async () => {
      const res = await fetch(`${kit.url}/pay-notify/social/pay`, { method: 'POST', body: '<xml><return_code>SUCCESS</return_code></xml>' });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'FAIL' });
    });

    test('refund notifications: a forged one and one for a refund never requested are refused and change nothing', async () => {
      const prepayId = await newOrder(f);
      await payByCode(kit, f, prepayId);
      await f.client.waitForPayment(prepayId);
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
      const refund = (no: string) => ({
        sp_mchid: JSON.parse(co.merchant_json).mch_id,
        sub_mchid: JSON.parse(co.merchant_json).sub_mch_id,
        out_trade_no: co.out_trade_no,
        transaction_id: co.transaction_id,
        out_refund_no: no,
        refund_id: `50300${Date.now()}`,
        refund_status: 'SUCCESS',
        success_time: cst(Date.now()),
        user_received_account: 'sandbox payer balance',
        amount: { total: co.total_cents, refund: co.total_cents, payer_total: co.total_cents, payer_refund: co.total_cents },
      });
      expect(await send('refund', refund('Rforged'), { key: other })).toMatchObject({ status: 400, body: { code: 'FAIL' } });
      expect(await send('refund', refund('RneverRequested'))).toMatchObject({ status: 400, body: { code: 'FAIL' } });
      expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
    });

    test("the sandbox's notifications: duplicates acknowledged every time with one state change and one callback", async () => {
      const prepayId = await newOrder(f);
      await payByCode(kit, f, prepayId);
      const first = await f.client.waitForPayment(prepayId);
      expect(first.status).toBe('finish');
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
      // A v3 scan-code order has no channel prepay id: the sandbox keys its notifications by its own.
      const sandboxOrder = await sandboxTables(kit)
        .selectFrom('sandbox_orders')
        .selectAll()
        .where('out_trade_no', '=', co.out_trade_no)
        .executeTakeFirstOrThrow();
      await sandboxPost(kit.url, '/renotify', { prepayId: sandboxOrder.prepay_id });
      const notifier = sandboxOf(kit.runtime.services)!.notifier;
      await waitFor(async () => {
        const rows = await notifier.notificationsFor(sandboxOrder.prepay_id);
        return rows.length === 2 && rows.every((r) => r.state === 'acked') && rows[0].attempts === 3;
      }, 'every copy acknowledged');
      expect(await f.client.prepayDetail(prepayId)).toEqual(first);
      expect((await kit.runtime.services.callbacks.history(prepayId)).map((c) => c.status)).toEqual(['finish']);
    });

    test("the sandbox's signature probes are refused, and the genuine notification after each still settles", async () => {
      await sandboxPost(kit.url, '/faults', { v3SignProbes: 1 });
      try {
        const prepayId = await newOrder(f);
        await payByCode(kit, f, prepayId);
        expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
        const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
        const sandboxOrder = await sandboxTables(kit)
          .selectFrom('sandbox_orders')
          .selectAll()
          .where('out_trade_no', '=', co.out_trade_no)
          .executeTakeFirstOrThrow();
        const rows = await waitFor(async () => {
          const r = await sandboxOf(kit.runtime.services)!.notifier.notificationsFor(sandboxOrder.prepay_id);
          return r.some((n) => n.probe && n.state !== 'pending') ? r : undefined;
        }, 'the probe sent');
        expect(rows.filter((n) => n.probe).map((n) => n.state)).toEqual(['probe_refused']);
        expect(await kit.runtime.services.callbacks.history(prepayId)).toHaveLength(1);
      } finally {
        await sandboxPost(kit.url, '/faults', {});
      }
    });
  },
  { protocols: ['v3'] },
);
