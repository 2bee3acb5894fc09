/**
 * The bench's platform notifications: made with the key material the service is started with, they
 * are what the kit's own v3 reading accepts (and a changed body is not); an acknowledgement is a 2xx
 * (with SUCCESS on v2), anything else counts as refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { v3Credentials } from '../../server/src/payments/providers/social-v3/credentials';
import { openNotification } from '../../server/src/payments/providers/social-v3/notification';
import { transactionFields } from '../../server/src/payments/providers/social-v3/partner-api';
import { PlatformKeyring } from '../../server/src/payments/providers/social-v3/platform-keys';
import { signedHeaders } from '../../server/src/payments/providers/social-v3/verify';
import { protocolSettings } from './lib/fleet';
import { acknowledged, payNotification } from './lib/notifications';
import { TEST_ORDER } from './test-order';

const order = TEST_ORDER;

describe('bench notifications', () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-notify-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('on v3 are signed and encrypted with the keys the service is configured with', () => {
    const { env, platform } = protocolSettings('v3', dir);
    expect(env.PAY_PROTOCOL).toBe('v3');
    const creds = v3Credentials({ PAY_SP_APPID: order.merchant.appid, PAY_SP_MCH_ID: order.merchant.mch_id, ...env });
    if (creds.platform.mode !== 'public-key') throw new Error('the bench configures public-key mode');
    const keys = PlatformKeyring.publicKeyMode(creds.platform.id, creds.platform.publicKey);

    const n = payNotification(platform, order, '1');
    expect(n.path).toBe('/pay-notify/social/pay');
    const headers = signedHeaders((name) => n.headers[name.toLowerCase()]);
    const opened = openNotification(headers, n.body, keys, creds.apiV3Key, Date.now());
    if (!opened.ok) throw new Error(opened.message);
    expect(opened.eventType).toBe('TRANSACTION.SUCCESS');
    expect(transactionFields(opened.resource)).toMatchObject({
      out_trade_no: order.outTradeNo,
      total_fee: '100',
      sub_mch_id: '1900000110',
      result_code: 'SUCCESS',
      transaction_id: '4200bench1',
    });

    const tampered = n.body.replace('TRANSACTION.SUCCESS', 'TRANSACTION.SUCCESS ');
    expect(openNotification(headers, tampered, keys, creds.apiV3Key, Date.now())).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('on v2 start the service with PAY_PROTOCOL=v2 and its shared key', () => {
    const { env, platform } = protocolSettings('v2', dir);
    expect(env).toMatchObject({ PAY_PROTOCOL: 'v2', PAY_SP_KEY: platform.v2Key });
    expect(payNotification(platform, order, '2').body).toContain(order.outTradeNo);
  });

  it('count as acknowledged only when answered 2xx (and SUCCESS on v2)', () => {
    expect(acknowledged('v3', 204, '')).toBe(true);
    expect(acknowledged('v3', 400, '{"code":"FAIL","message":"Wechatpay-Signature does not verify"}')).toBe(false);
    expect(acknowledged('v3', 500, '')).toBe(false);
    expect(acknowledged('v2', 200, '<xml><return_code>SUCCESS</return_code></xml>')).toBe(true);
    expect(acknowledged('v2', 400, '<xml><return_code>FAIL</return_code></xml>')).toBe(false);
    expect(acknowledged('v2', 200, '<xml><return_code>FAIL</return_code></xml>')).toBe(false);
  });
});
