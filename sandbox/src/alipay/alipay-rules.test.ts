/** The sandbox's Alipay rules against the official alipay-sdk: the referee refereed. */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { AlipaySdk } from 'alipay-sdk';
import { requestVerifies, rsa2, signedNotification, signingText } from './alipay-rules';

const app = generateKeyPairSync('rsa', { modulusLength: 2048 });
const alipay = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pkcs8 = (k: KeyObject) => k.export({ format: 'pem', type: 'pkcs8' }) as string;
const spki = (k: KeyObject) => k.export({ format: 'pem', type: 'spki' }) as string;
/** The SDK as an application uses it: the app's key signs, Alipay's verifies. */
const sdk = new AlipaySdk({ appId: '2021000000000001', privateKey: pkcs8(app.privateKey), keyType: 'PKCS8', alipayPublicKey: spki(alipay.publicKey) });

describe("Alipay's rules", () => {
  it("verify a request the SDK signed, and refuse any change or another key's", () => {
    const query = sdk.sdkExecute('alipay.trade.precreate', {
      bizContent: { out_trade_no: 'T1', total_amount: '0.01', subject: '咖啡 & 茶' },
      notifyUrl: 'https://m.example/n?a=1',
    });
    const params = Object.fromEntries(new URLSearchParams(query));
    expect(params.sign_type).toBe('RSA2');
    expect(requestVerifies(params, app.publicKey)).toBe(true);
    expect(requestVerifies({ ...params, biz_content: params.biz_content.replace('0.01', '1.00') }, app.publicKey)).toBe(false);
    expect(requestVerifies({ ...params, sign_type: 'RSA' }, app.publicKey)).toBe(false);
    expect(requestVerifies(params, alipay.publicKey)).toBe(false);
    expect(requestVerifies({ ...params, sign: '' }, app.publicKey)).toBe(false);
  });

  it("sign a notification so that the SDK's checks take it", () => {
    const form = {
      notify_type: 'trade_status_sync',
      out_trade_no: 'T1',
      trade_status: 'TRADE_SUCCESS',
      total_amount: '0.01',
      subject: 'a%b+c d',
      app_id: '2021000000000001',
    };
    const signed = signedNotification(form, alipay.privateKey);
    expect(signed.sign_type).toBe('RSA2');
    expect(sdk.checkNotifySignV2(signed)).toBe(true);
    expect(sdk.checkNotifySignV2({ ...signed, total_amount: '1.00' })).toBe(false);
    expect(sdk.checkNotifySignV2(signedNotification(form, app.privateKey))).toBe(false);
  });

  it("sign an answer's node as the SDK verifies it", () => {
    const text = JSON.stringify({ code: '10000', msg: 'Success', qr_code: 'https://qr.alipay.com/x' }).replace(/\//g, '\\/');
    const raw = `{"alipay_trade_precreate_response":${text},"sign":"${rsa2(text, alipay.privateKey)}"}`;
    expect(() => sdk.checkResponseSign(raw, 'alipay_trade_precreate_response', rsa2(text, alipay.privateKey), 't')).not.toThrow();
    expect(() => sdk.checkResponseSign(raw, 'alipay_trade_precreate_response', rsa2(`${text} `, alipay.privateKey), 't')).toThrow();
  });

  it('leave out the empty values and the excluded names, sorted by name', () => {
    expect(signingText({ b: '2', a: '1', sign: 's', c: '', d: undefined })).toBe('a=1&b=2');
    expect(signingText({ b: '2', sign_type: 'RSA2' }, ['sign', 'sign_type'])).toBe('b=2');
  });
});
