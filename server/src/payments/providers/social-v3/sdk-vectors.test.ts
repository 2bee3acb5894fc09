/** The v3 module against the official Go SDK's published vectors (sdk-vectors.fixture.ts). */
import { createPublicKey } from 'node:crypto';
import { aeadDecrypt, gcmOpen } from './aead';
import { certificateInfo, loadPrivateKey, loadPublicKey } from './keys';
import { openNotification } from './notification';
import { PlatformKeyring } from './platform-keys';
import { decryptSensitive } from './sensitive';
import { rsaSign, rsaVerify } from './sign';
import { verifyPlatformSignature } from './verify';
import { GO_NOTIFICATION, GO_OAEP, GO_PRIVATE_KEY, GO_SIGNER } from './sdk-vectors.fixture';

const now = GO_NOTIFICATION.nowSeconds * 1000;
const cert = certificateInfo(GO_NOTIFICATION.certificate);
const keyring = new PlatformKeyring([{ id: cert.serial, publicKey: cert.publicKey, notAfter: cert.notAfter }]);

describe('API v3 against wechatpay-go vectors', () => {
  test('SHA256-with-RSA signature of the Go signer test', () => {
    const key = loadPrivateKey(GO_PRIVATE_KEY);
    expect(rsaSign(GO_SIGNER.message, key)).toBe(GO_SIGNER.signature);
    expect(rsaVerify(GO_SIGNER.message, GO_SIGNER.signature, createPublicKey(key))).toBe(true);
    expect(rsaVerify(`${GO_SIGNER.message}.`, GO_SIGNER.signature, createPublicKey(key))).toBe(false);
  });

  test('the certificate serial is the one the notification names', () => {
    expect(cert.serial).toBe(GO_NOTIFICATION.headers.serial);
    expect(loadPublicKey(GO_NOTIFICATION.certificate).export({ format: 'der', type: 'spki' })).toEqual(
      createPublicKey(loadPrivateKey(GO_PRIVATE_KEY)).export({ format: 'der', type: 'spki' }),
    );
  });

  test('the notification verifies and its resource opens to the published plaintext', () => {
    expect(verifyPlatformSignature(GO_NOTIFICATION.headers, GO_NOTIFICATION.body, keyring, now)).toEqual({ ok: true, serial: 'D7CE59D1F522D701' });
    const resource = (JSON.parse(GO_NOTIFICATION.body) as { resource: Parameters<typeof aeadDecrypt>[0] }).resource;
    // The vector's key has 16 bytes (AES-128-GCM): the layout is checked here, the 32-byte rule below.
    expect(gcmOpen(resource, Buffer.from(GO_NOTIFICATION.apiV3Key))).toBe(GO_NOTIFICATION.plaintext);
    expect(() => gcmOpen({ ...resource, associated_data: 'other' }, Buffer.from(GO_NOTIFICATION.apiV3Key))).toThrow(/does not decrypt/);
    expect(() => aeadDecrypt(resource, GO_NOTIFICATION.apiV3Key)).toThrow(/must be 32 bytes/);
    expect(openNotification(GO_NOTIFICATION.headers, GO_NOTIFICATION.body, keyring, GO_NOTIFICATION.apiV3Key, now)).toMatchObject({
      ok: false,
      reason: 'undecryptable',
    });
  });

  test('the same notification is refused when stale, tampered, probed, from an unknown serial or under another APIv3 key', () => {
    const h = GO_NOTIFICATION.headers;
    const body = GO_NOTIFICATION.body;
    expect(verifyPlatformSignature(h, body, keyring, now + 5 * 60_000)).toMatchObject({ ok: true });
    expect(verifyPlatformSignature(h, body, keyring, now + 5 * 60_000 + 1000)).toMatchObject({ ok: false, reason: 'stale' });
    expect(verifyPlatformSignature(h, body, keyring, now - 5 * 60_000 - 1000)).toMatchObject({ ok: false, reason: 'stale' });
    expect(verifyPlatformSignature(h, body.replace('签约成功', '签约失败'), keyring, now)).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(verifyPlatformSignature({ ...h, nonce: `${h.nonce}x` }, body, keyring, now)).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(verifyPlatformSignature({ ...h, signature: `WECHATPAY/SIGNTEST/${h.signature}` }, body, keyring, now)).toMatchObject({ ok: false, reason: 'probe' });
    expect(verifyPlatformSignature({ ...h, serial: 'D7CE59D1F522D702' }, body, keyring, now)).toMatchObject({ ok: false, reason: 'unknown_serial' });
    expect(verifyPlatformSignature({ ...h, signature: undefined }, body, keyring, now)).toMatchObject({ ok: false, reason: 'missing_headers' });
  });

  test('an expired certificate verifies nothing', () => {
    expect(verifyPlatformSignature(GO_NOTIFICATION.headers, GO_NOTIFICATION.body, keyring, cert.notAfter + 1)).toMatchObject({ ok: false });
    expect(keyring.key(cert.serial, cert.notAfter + 1)).toBeUndefined();
  });

  test('RSA-OAEP ciphertext of the Go decryptor test', () => {
    expect(decryptSensitive(GO_OAEP.ciphertext, loadPrivateKey(GO_PRIVATE_KEY))).toBe(GO_OAEP.plaintext);
  });
});
