/**
 * Personal data in requests (a profit-sharing receiver's name) is RSA-OAEP encrypted (SHA-1, MGF1
 * SHA-1) to the platform key, whose id goes in the `Wechatpay-Serial` request header.
 */
import { constants, privateDecrypt, publicEncrypt, type KeyObject } from 'node:crypto';

export function encryptSensitive(text: string, platformKey: KeyObject): string {
  return publicEncrypt({ key: platformKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, Buffer.from(text, 'utf8')).toString('base64');
}

/** The platform's side (the sandbox). */
export function decryptSensitive(ciphertext: string, privateKey: KeyObject): string {
  return privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, Buffer.from(ciphertext, 'base64')).toString('utf8');
}
