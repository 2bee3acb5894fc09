/**
 * The v3 module against wechatpay-axios-plugin, a maintained Node SDK the kit does not contain: what
 * the kit signs or encrypts, the plugin verifies or decrypts, and the other way round; then the
 * plugin's own client calls a small platform built from this module over real HTTP and verifies
 * its answers (and refuses a tampered one); last, the payment code's calls (`codepay`, `reverse`)
 * sent by the kit and by the plugin side by side, and their answers as each reads them.
 */
import { systemClock } from '@kit/shared/clock';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { Aes, Formatter, Rsa, Wechatpay } from 'wechatpay-axios-plugin';
import type { PayChannelOrdersTable } from '../../../db/schema';
import { codePaymentOf } from '../protocol-v2/code-payment';
import { aeadDecrypt, aeadEncrypt } from './aead';
import { decodeCertificates, encryptCertificateEntry } from './certificates';
import { V3Client } from './client';
import { openNotification } from './notification';
import { appArgs, miniProgramArgs } from './payer-args';
import { PublicKeySource } from './platform-key-source';
import { PlatformKeyring } from './platform-keys';
import { decryptSensitive, encryptSensitive } from './sensitive';
import { authorization, lines, newNonce, parseAuthorization, responseMessage, rsaSign, unixSeconds, verifyAuthorization } from './sign';
import { GO_NOTIFICATION } from './sdk-vectors.fixture';
import { V3Calls } from './v3-calls';

const rsaPair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const merchant = rsaPair();
const platform = rsaPair();
const PUB_KEY_ID = 'PUB_KEY_ID_0112345678902025010100000000000000';
const apiV3Key = randomBytes(16).toString('hex');
const keyring = PlatformKeyring.publicKeyMode(PUB_KEY_ID, platform.publicKey);
const signer = { mchid: '1900000001', serial: '5157F09EFDC096DE15EBE81A47057A7232F1B8E1', privateKey: merchant.privateKey };
const pem = (k: KeyObject) => k.export({ format: 'pem', type: k.type === 'private' ? 'pkcs8' : 'spki' }).toString();

describe('API v3 against wechatpay-axios-plugin', () => {
  test('the Authorization header verifies with the plugin, and its fields read back', () => {
    const body = JSON.stringify({ sp_mchid: '1900000001', sub_mchid: '1900000109', out_trade_no: 'T1', amount: { total: 1, currency: 'CNY' } });
    const header = authorization(signer, 'POST', '/v3/pay/partner/transactions/native', body, unixSeconds(Date.now()));
    const parts = parseAuthorization(header)!;
    expect(parts).toMatchObject({ mchid: '1900000001', serial_no: signer.serial });
    const message = Formatter.request('POST', '/v3/pay/partner/transactions/native', parts.timestamp, parts.nonce_str, body);
    expect(Rsa.verify(message, parts.signature, merchant.publicKey)).toBe(true);
    expect(Rsa.verify(message.replace('"total":1', '"total":2'), parts.signature, merchant.publicKey)).toBe(false);
    // And the plugin's own header parses and verifies here.
    const ts = unixSeconds(Date.now());
    const nonce = Formatter.nonce();
    const pluginHeader = Formatter.authorization(
      '1900000001',
      nonce,
      Rsa.sign(Formatter.request('GET', '/v3/certificates', ts, nonce), merchant.privateKey),
      ts,
      signer.serial,
    );
    const pluginParts = parseAuthorization(pluginHeader)!;
    expect(verifyAuthorization(pluginParts, 'GET', '/v3/certificates', '', merchant.publicKey)).toBe(true);
    expect(verifyAuthorization(pluginParts, 'GET', '/v3/certificates?x=1', '', merchant.publicKey)).toBe(false);
  });

  test('a notification the plugin signs and encrypts opens here; one it tampers with does not', () => {
    const plaintext = JSON.stringify({ sp_mchid: '1900000001', out_trade_no: 'T1', trade_state: 'SUCCESS', amount: { total: 1, payer_total: 1 } });
    const nonce = Formatter.nonce(12);
    const body = JSON.stringify({
      id: 'EV-1',
      create_time: '2025-01-01T10:00:00+08:00',
      event_type: 'TRANSACTION.SUCCESS',
      resource_type: 'encrypt-resource',
      summary: '支付成功',
      resource: {
        original_type: 'transaction',
        algorithm: 'AEAD_AES_256_GCM',
        ciphertext: Aes.AesGcm.encrypt(plaintext, apiV3Key, nonce, 'transaction'),
        associated_data: 'transaction',
        nonce,
      },
    });
    const ts = String(unixSeconds(Date.now()));
    const hNonce = Formatter.nonce();
    const headers = { timestamp: ts, nonce: hNonce, serial: PUB_KEY_ID, signature: Rsa.sign(Formatter.response(ts, hNonce, body), platform.privateKey) };
    const opened = openNotification(headers, body, keyring, apiV3Key, Date.now());
    expect(opened).toEqual({ ok: true, id: 'EV-1', eventType: 'TRANSACTION.SUCCESS', resource: JSON.parse(plaintext), serial: PUB_KEY_ID });
    expect(openNotification(headers, body.replace('EV-1', 'EV-2'), keyring, apiV3Key, Date.now())).toMatchObject({ ok: false, reason: 'bad_signature' });
    const other = rsaPair();
    const forged = { ...headers, signature: Rsa.sign(Formatter.response(ts, hNonce, body), other.privateKey) };
    expect(openNotification(forged, body, keyring, apiV3Key, Date.now())).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  test('AEAD_AES_256_GCM both ways', () => {
    const text = '{"out_refund_no":"R1","refund_status":"SUCCESS"}';
    const nonce = newNonce().slice(0, 12);
    expect(Aes.AesGcm.decrypt(aeadEncrypt(text, apiV3Key, nonce, 'refund'), apiV3Key, nonce, 'refund')).toBe(text);
    const theirs = Aes.AesGcm.encrypt(text, apiV3Key, nonce, 'refund');
    expect(aeadDecrypt({ algorithm: 'AEAD_AES_256_GCM', ciphertext: theirs, nonce, associated_data: 'refund' }, apiV3Key)).toBe(text);
    expect(() => aeadDecrypt({ algorithm: 'AEAD_AES_256_GCM', ciphertext: theirs, nonce, associated_data: 'refunds' }, apiV3Key)).toThrow(/does not decrypt/);
    expect(() => aeadDecrypt({ algorithm: 'AEAD_AES_128_CBC', ciphertext: theirs, nonce }, apiV3Key)).toThrow(/not AEAD_AES_256_GCM/);
  });

  test('RSA-OAEP personal names both ways', () => {
    expect(Rsa.decrypt(encryptSensitive('张三', platform.publicKey), platform.privateKey)).toBe('张三');
    expect(decryptSensitive(Rsa.encrypt('李四', platform.publicKey), platform.privateKey)).toBe('李四');
  });

  test('mini-program paySign and app sign verify with the plugin over the documented lines', () => {
    const mp = miniProgramArgs('wxd678efh567hg6787', 'wx201410272009395522657a690389285100', merchant.privateKey, unixSeconds(Date.now()));
    expect(mp).toMatchObject({ package: 'prepay_id=wx201410272009395522657a690389285100', signType: 'RSA' });
    const mpMessage = Formatter.joinedByLineFeed('wxd678efh567hg6787', String(mp.timeStamp), mp.nonceStr, mp.package);
    expect(Rsa.verify(mpMessage, mp.paySign, merchant.publicKey)).toBe(true);
    expect(mpMessage).toBe(lines('wxd678efh567hg6787', mp.timeStamp, mp.nonceStr, mp.package));
    const app = appArgs(
      { appid: 'wx8888888888888888', partnerid: '1900000109' },
      'WX1217752501201407033233368018',
      merchant.privateKey,
      String(unixSeconds(Date.now())),
    );
    expect(app).toMatchObject({ package: 'Sign=WXPay', partnerid: '1900000109' });
    expect(Rsa.verify(Formatter.joinedByLineFeed('wx8888888888888888', app.timestamp, app.noncestr, app.prepayid), app.sign, merchant.publicKey)).toBe(true);
  });

  test('downloaded certificates decrypt (the plugin agrees) and a mislabelled one is refused', () => {
    const nonce = newNonce().slice(0, 12);
    const entry = encryptCertificateEntry(GO_NOTIFICATION.certificate, apiV3Key, nonce) as { serial_no: string; encrypt_certificate: { ciphertext: string } };
    expect(entry.serial_no).toBe('D7CE59D1F522D701');
    expect(Aes.AesGcm.decrypt(entry.encrypt_certificate.ciphertext, apiV3Key, nonce, 'certificate')).toBe(GO_NOTIFICATION.certificate);
    const certs = decodeCertificates(JSON.stringify({ data: [entry] }), apiV3Key, Date.UTC(2025, 0, 1));
    expect(certs.map((c) => c.serial)).toEqual(['D7CE59D1F522D701']);
    expect(decodeCertificates(JSON.stringify({ data: [entry] }), apiV3Key, Date.UTC(2032, 0, 1))).toEqual([]);
    expect(() => decodeCertificates(JSON.stringify({ data: [{ ...entry, serial_no: '0123' }] }), apiV3Key, Date.now())).toThrow(/has serial D7CE59D1F522D701/);
    expect(() => decodeCertificates(JSON.stringify({ data: [entry] }), 'x'.repeat(32), Date.now())).toThrow(/does not decrypt/);
  });

  describe('the plugin client against a platform built from this module', () => {
    let server: Server;
    let baseURL = '';
    let tamper = false;
    const seen: string[] = [];

    beforeAll(async () => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const parts = parseAuthorization(req.headers.authorization);
          const ok = parts !== null && verifyAuthorization(parts, req.method!, req.url!, body, merchant.publicKey);
          seen.push(`${req.method} ${req.url} ${ok ? 'verified' : 'refused'}`);
          const answer = ok
            ? JSON.stringify({ code_url: 'weixin://wxpay/bizpayurl?pr=abc' })
            : JSON.stringify({ code: 'SIGN_ERROR', message: 'bad signature' });
          const ts = String(unixSeconds(Date.now()));
          const nonce = newNonce();
          res.writeHead(ok ? 200 : 401, {
            'content-type': 'application/json',
            'request-id': 'RID-1',
            'wechatpay-timestamp': ts,
            'wechatpay-nonce': nonce,
            'wechatpay-serial': PUB_KEY_ID,
            'wechatpay-signature': rsaSign(responseMessage(ts, nonce, tamper ? answer.replace('abc', 'abd') : answer), platform.privateKey),
          });
          res.end(answer);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const client = () =>
      new Wechatpay({
        mchid: signer.mchid,
        serial: signer.serial,
        privateKey: pem(merchant.privateKey),
        certs: { [PUB_KEY_ID]: pem(createPublicKey(platform.privateKey)) },
        baseURL,
      });

    test('its signed request verifies here and our signed answer verifies there', async () => {
      const res = await client().v3.pay.partner.transactions.native.post({ sp_mchid: signer.mchid, sub_mchid: '1900000109', out_trade_no: 'T1' });
      expect(res.data).toEqual({ code_url: 'weixin://wxpay/bizpayurl?pr=abc' });
      expect(seen.at(-1)).toBe('POST /v3/pay/partner/transactions/native verified');
    });

    test('a query string is part of what is signed', async () => {
      await client().v3.pay.partner.transactions.outTradeNo._out_trade_no_.get({
        out_trade_no: 'T1',
        params: { sp_mchid: signer.mchid, sub_mchid: '1900000109' },
      });
      expect(seen.at(-1)).toBe('GET /v3/pay/partner/transactions/out-trade-no/T1?sp_mchid=1900000001&sub_mchid=1900000109 verified');
    });

    test('an answer whose signature does not match its body is refused by the plugin', async () => {
      tamper = true;
      try {
        await expect(client().v3.pay.partner.transactions.native.post({ sp_mchid: signer.mchid })).rejects.toThrow(
          /Verify the response's data with: timestamp=/,
        );
      } finally {
        tamper = false;
      }
    });
  });
});

describe('payment codes (codepay, reverse): the kit and the plugin side by side', () => {
  let server: Server;
  let baseURL = '';
  /** What the platform got: the plugin's own verification of the request's signature, and the body as sent. */
  const seen: Array<{ method: string; url: string; text: string; body: Record<string, unknown> | null; pluginVerified: boolean }> = [];
  /** The platform's next answer: signed by the platform key unless `signed: false` (error answers often are not); `tamper` breaks the signature. */
  let next: { status: number; body: object | null; signed?: boolean; tamper?: boolean } = { status: 204, body: null };

  const sub = { sp_appid: 'wx8888888888888888', sp_mchid: signer.mchid, sub_mchid: '1900000109' };
  const co: PayChannelOrdersTable = {
    out_trade_no: 'C20250101A',
    prepay_id: 'P1',
    channel: 'SocialNative',
    trade_type: 'MICROPAY',
    sign_type: 'RSA',
    open_id: null,
    profit_sharing: 0,
    state: 'creating',
    total_cents: 880,
    merchant_json: JSON.stringify({ appid: sub.sp_appid, mch_id: sub.sp_mchid, sub_appid: 'wxmerchantapp0001', sub_mch_id: sub.sub_mchid }),
    channel_prepay_id: null,
    code_url: null,
    answer_json: null,
    transaction_id: null,
    paid_at: null,
    paid_via: null,
    created_at: 0,
    updated_at: 0,
  };
  const order = { prepay_id: 'P1', display_name: 'Corner Shop', total_cents: 880, expire_at: 0 };
  const code = { authCode: '130061098828009406', deviceId: 'POS-01', storeId: 'SMcornershop01' };
  const transaction = {
    sp_appid: sub.sp_appid,
    sp_mchid: sub.sp_mchid,
    sub_appid: 'wxmerchantapp0001',
    sub_mchid: sub.sub_mchid,
    out_trade_no: co.out_trade_no,
    transaction_id: '4200000001202501010000000001',
    trade_type: 'MICROPAY',
    trade_state: 'SUCCESS',
    success_time: '2025-01-01T10:05:30+08:00',
    amount: { total: 880, currency: 'CNY', payer_total: 880 },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const parts = parseAuthorization(req.headers.authorization);
        const pluginVerified =
          !!parts && Rsa.verify(Formatter.request(req.method!, req.url!, parts.timestamp, parts.nonce_str, text), parts.signature, merchant.publicKey);
        seen.push({ method: req.method!, url: req.url!, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : null, pluginVerified });
        const out = next.body ? JSON.stringify(next.body) : '';
        const ts = String(unixSeconds(Date.now()));
        const nonce = newNonce();
        res.writeHead(next.status, {
          'content-type': 'application/json',
          'request-id': 'RID-7',
          ...(next.signed === false
            ? {}
            : {
                'wechatpay-timestamp': ts,
                'wechatpay-nonce': nonce,
                'wechatpay-serial': PUB_KEY_ID,
                'wechatpay-signature': rsaSign(responseMessage(ts, nonce, next.tamper ? `${out} ` : out), platform.privateKey),
              }),
        });
        res.end(out);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const plugin = () =>
    new Wechatpay({
      mchid: signer.mchid,
      serial: signer.serial,
      privateKey: pem(merchant.privateKey),
      certs: { [PUB_KEY_ID]: pem(createPublicKey(platform.privateKey)) },
      baseURL,
    });
  const kit = () => {
    const keys = new PublicKeySource(PUB_KEY_ID, platform.publicKey, Date.now);
    const client = new V3Client({ baseUrl: baseURL.replace(/\/$/, ''), signer, timeoutMs: 5000, clock: systemClock }, keys);
    return new V3Calls(
      () => client,
      keys,
      (kind) => `https://kit.example/pay-notify/social/${kind}`,
    );
  };
  /** The kit's reading of the answers into the kit's facts, as the provider reads them. */
  const kitCode = () => {
    const calls = kit();
    return codePaymentOf(
      () => calls,
      () => Date.now(),
    );
  };
  /** What the plugin's axios gives back: the answer, or the error's answer. */
  const settled = <T>(p: Promise<T>) =>
    p.then(
      (r) => ({ ok: true as const, r: r as unknown as { status: number; data: Record<string, unknown> } }),
      (e: { message: string; response?: { status: number; data: Record<string, unknown> } }) => ({ ok: false as const, message: e.message, r: e.response }),
    );

  test('codepay: the kit sends what the plugin sends for the same payment (path, body, a signature the plugin verifies); the paid answer reads alike', async () => {
    next = { status: 200, body: transaction };
    // Paid within the second the platform names (the kit keeps its end: `checks.ts`).
    expect(await kitCode().pay(co, order, code)).toEqual({
      ok: true,
      paid: { transactionId: transaction.transaction_id, paidAt: Date.parse(transaction.success_time) + 999 },
    });
    const sent = seen.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', url: '/v3/pay/partner/transactions/codepay', pluginVerified: true });
    // The fields of wechatpay-php's `Pay/Partner/Transactions/Codepay` that the kit fills (`scene_info.store_info` is required there).
    expect(sent.body).toEqual({
      sp_appid: sub.sp_appid,
      sp_mchid: sub.sp_mchid,
      sub_appid: 'wxmerchantapp0001',
      sub_mchid: sub.sub_mchid,
      description: 'Corner Shop',
      out_trade_no: co.out_trade_no,
      attach: 'P1',
      payer: { auth_code: code.authCode },
      amount: { total: 880, currency: 'CNY' },
      scene_info: { device_id: 'POS-01', store_info: { out_id: 'SMcornershop01' } },
    });
    const theirs = await plugin().v3.pay.partner.transactions.codepay.post(sent.body!);
    expect(theirs.status).toBe(200);
    expect(theirs.data).toEqual(transaction);
    const pluginSent = seen.at(-1)!;
    expect(pluginSent).toMatchObject({ method: 'POST', url: sent.url, pluginVerified: true });
    expect(pluginSent.text).toBe(sent.text);
  });

  test('202 USERPAYING: verified, a success with the code to the plugin, the payer confirming to the kit; tampered, both refuse it', async () => {
    next = { status: 202, body: { code: 'USERPAYING', message: '需要用户输入支付密码' } };
    const theirs = await plugin().v3.pay.partner.transactions.codepay.post(seen.at(-1)?.body ?? {});
    expect(theirs.status).toBe(202);
    expect(theirs.data).toEqual({ code: 'USERPAYING', message: '需要用户输入支付密码' });
    expect(await kitCode().pay(co, order, code)).toEqual({ ok: true, paid: null });
    next = { ...next, tamper: true };
    expect(await settled(plugin().v3.pay.partner.transactions.codepay.post({}))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Verify the response's data/),
    });
    await expect(kitCode().pay(co, order, code)).rejects.toMatchObject({ error: 'channel_error' });
  });

  test.each([
    [403, 'NOTENOUGH', 'payer_cannot_pay'],
    [400, 'AUTHCODEEXPIRE', 'code_unusable'],
    [400, 'AUTH_CODE_INVALID', 'code_unusable'],
    [403, 'TRADE_ERROR', 'other'],
  ])('an unsigned %i %s: an error with its code to the plugin, unverified; a refusal meaning %s to the kit', async (status, errCode, meaning) => {
    next = { status, body: { code: errCode, message: '说明' }, signed: false };
    const theirs = await settled(plugin().v3.pay.partner.transactions.codepay.post({}));
    expect(theirs).toMatchObject({ ok: false, r: { status, data: { code: errCode, message: '说明' } } });
    expect(await kitCode().pay(co, order, code)).toEqual({
      ok: false,
      refusal: { call: 'order', meaning, code: errCode, message: '说明 (Request-ID RID-7)' },
    });
  });

  test('SYSTEM_ERROR and BANK_ERROR say nothing of the money: errors to the plugin, no outcome to the kit (it reverses)', async () => {
    for (const [status, errCode] of [
      [500, 'SYSTEM_ERROR'],
      [403, 'BANK_ERROR'],
    ] as const) {
      next = { status, body: { code: errCode, message: '系统繁忙' }, signed: false };
      expect(await settled(plugin().v3.pay.partner.transactions.codepay.post({}))).toMatchObject({ ok: false, r: { status, data: { code: errCode } } });
      await expect(kitCode().pay(co, order, code)).rejects.toMatchObject({ error: 'channel_unavailable' });
    }
  });

  test('reverse: the kit sends what the plugin sends (the path with out_trade_no, the body, verified); recall true asks the kit again, 200 or 204 without it is done', async () => {
    next = { status: 200, body: { recall: true } };
    expect(await kitCode().cancel(co)).toEqual({ ok: true, again: true });
    const sent = seen.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', url: `/v3/pay/partner/transactions/out-trade-no/${co.out_trade_no}/reverse`, pluginVerified: true });
    expect(sent.body).toEqual(sub);
    const theirs = await plugin().v3.pay.partner.transactions.outTradeNo._out_trade_no_.reverse.post(sent.body!, { out_trade_no: co.out_trade_no });
    expect(theirs.data).toEqual({ recall: true });
    expect(seen.at(-1)).toMatchObject({ url: sent.url, text: sent.text, pluginVerified: true });
    next = { status: 200, body: { recall: false } };
    expect(await kitCode().cancel(co)).toEqual({ ok: true, again: false });
    next = { status: 204, body: null };
    expect(await kitCode().cancel(co)).toEqual({ ok: true, again: false });
    expect((await plugin().v3.pay.partner.transactions.outTradeNo._out_trade_no_.reverse.post(sub, { out_trade_no: co.out_trade_no })).status).toBe(204);
    next = { status: 404, body: { code: 'ORDER_NOT_EXIST', message: '订单不存在' }, signed: false };
    expect(await kitCode().cancel(co)).toMatchObject({ ok: false, refusal: { meaning: 'not_found' } });
  });
});
