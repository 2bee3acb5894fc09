/** v3 notifications made with wechatpay-axios-plugin read into the services' vocabulary; forged, stale, probe, replayed-at-the-wrong-endpoint ones refused. */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Aes, Formatter, Rsa } from 'wechatpay-axios-plugin';
import { paidFieldsProblem } from '../protocol-v2/checks';
import { notificationFacts } from './notification-facts';
import { PublicKeySource } from './platform-key-source';

const platform = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUB_KEY_ID = 'PUB_KEY_ID_0119000000012025010100000000000003';
const apiV3Key = randomBytes(16).toString('hex');
const keys = new PublicKeySource(PUB_KEY_ID, platform.publicKey, Date.now);

function notification(eventType: string, resource: object, o: { key?: typeof platform.privateKey; ts?: number; signature?: string } = {}) {
  const nonce = Formatter.nonce(12);
  const originalType = eventType.startsWith('REFUND') ? 'refund' : 'transaction';
  const body = JSON.stringify({
    id: `EV-${Formatter.nonce(8)}`,
    create_time: '2025-01-01T10:05:07+08:00',
    resource_type: 'encrypt-resource',
    event_type: eventType,
    summary: '通知',
    resource: {
      original_type: originalType,
      algorithm: 'AEAD_AES_256_GCM',
      ciphertext: Aes.AesGcm.encrypt(JSON.stringify(resource), apiV3Key, nonce, originalType),
      associated_data: originalType,
      nonce,
    },
  });
  const ts = String(o.ts ?? Formatter.timestamp());
  const hNonce = Formatter.nonce();
  const signature = o.signature ?? Rsa.sign(Formatter.response(ts, hNonce, body), o.key ?? platform.privateKey);
  return { headers: { timestamp: ts, nonce: hNonce, signature, serial: PUB_KEY_ID }, body };
}

const paid = {
  sp_appid: 'wx8888888888888888',
  sp_mchid: '1900000001',
  sub_mchid: '1900000109',
  out_trade_no: 'T1',
  transaction_id: '4200000985202501011234567890',
  trade_type: 'NATIVE',
  trade_state: 'SUCCESS',
  success_time: '2025-01-01T10:05:06+08:00',
  amount: { total: 1234, payer_total: 1234, currency: 'CNY', payer_currency: 'CNY' },
};

describe('v3 notifications', () => {
  test('a payment reads as the services check payments', async () => {
    const n = notification('TRANSACTION.SUCCESS', paid);
    const facts = await notificationFacts('pay', n.headers, n.body, keys, apiV3Key);
    expect(facts).toMatchObject({ ok: true, eventType: 'TRANSACTION.SUCCESS', fields: { out_trade_no: 'T1', total_fee: '1234', time_end: '20250101100506' } });
    if (facts.ok)
      expect(
        paidFieldsProblem(facts.fields, {
          sign_type: 'RSA',
          total_cents: 1234,
          merchant: { appid: 'wx8888888888888888', mch_id: '1900000001', sub_mch_id: '1900000109' },
        }),
      ).toBeNull();
  });

  test('a refund reads with its v2-named status', async () => {
    const n = notification('REFUND.ABNORMAL', {
      sp_mchid: '1900000001',
      sub_mchid: '1900000109',
      out_trade_no: 'T1',
      out_refund_no: 'R1',
      refund_id: '5000',
      refund_status: 'ABNORMAL',
      amount: { total: 1234, refund: 1234, payer_total: 1234, payer_refund: 1234 },
    });
    expect(await notificationFacts('refund', n.headers, n.body, keys, apiV3Key)).toMatchObject({
      ok: true,
      fields: { out_refund_no: 'R1', refund_status: 'CHANGE', refund_fee: '1234' },
    });
  });

  test('forged, stale, probe, undecryptable and misdirected notifications are refused', async () => {
    const forged = notification('TRANSACTION.SUCCESS', paid, { key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey });
    expect(await notificationFacts('pay', forged.headers, forged.body, keys, apiV3Key)).toMatchObject({ ok: false, reason: 'bad_signature' });
    const stale = notification('TRANSACTION.SUCCESS', paid, { ts: Formatter.timestamp() - 301 });
    expect(await notificationFacts('pay', stale.headers, stale.body, keys, apiV3Key)).toMatchObject({ ok: false, reason: 'stale' });
    const probe = notification('TRANSACTION.SUCCESS', paid, { signature: `WECHATPAY/SIGNTEST/${randomBytes(32).toString('base64')}` });
    expect(await notificationFacts('pay', probe.headers, probe.body, keys, apiV3Key)).toMatchObject({ ok: false, reason: 'probe' });
    const good = notification('TRANSACTION.SUCCESS', paid);
    expect(await notificationFacts('pay', good.headers, good.body, keys, randomBytes(16).toString('hex'))).toMatchObject({
      ok: false,
      reason: 'undecryptable',
    });
    expect(await notificationFacts('refund', good.headers, good.body, keys, apiV3Key)).toMatchObject({ ok: false, reason: 'unexpected_event' });
    const tampered = good.body.replace('"summary":"通知"', '"summary":"通知!"');
    expect(await notificationFacts('pay', good.headers, tampered, keys, apiV3Key)).toMatchObject({ ok: false, reason: 'bad_signature' });
  });
});
