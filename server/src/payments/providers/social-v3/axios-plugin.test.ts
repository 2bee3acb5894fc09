/**
 * The v3 module against wechatpay-axios-plugin, a maintained Node SDK the kit does not contain: what
 * the kit signs or encrypts, the plugin verifies or decrypts, and the other way round; then the
 * plugin's own client calls a small platform built from this module over real HTTP and verifies
 * its answers (and refuses a tampered one).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { Aes, Formatter, Rsa, Wechatpay } from 'wechatpay-axios-plugin';
import { aeadDecrypt, aeadEncrypt } from './aead';
import { decodeCertificates, encryptCertificateEntry } from './certificates';
import { openNotification } from './notification';
import { appArgs, miniProgramArgs } from './payer-args';
import { PlatformKeyring } from './platform-keys';
import { decryptSensitive, encryptSensitive } from './sensitive';
import { authorization, lines, newNonce, parseAuthorization, responseMessage, rsaSign, unixSeconds, verifyAuthorization } from './sign';
import { GO_NOTIFICATION } from './sdk-vectors.fixture';

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
