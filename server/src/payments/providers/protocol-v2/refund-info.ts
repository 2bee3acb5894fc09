/**
 * Refund notifications carry no signature: their `req_info` is AES-256-ECB (PKCS#7) encrypted
 * with the lower-case hex MD5 of the API key as the key, base64 encoded. Decrypting it is what
 * proves the notification came from the platform.
 */
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { parseXml, toXml, type Fields } from './xml';

const keyOf = (apiKey: string) => Buffer.from(createHash('md5').update(apiKey, 'utf8').digest('hex'), 'utf8');

export function encryptReqInfo(fields: Record<string, string | number>, apiKey: string): string {
  const c = createCipheriv('aes-256-ecb', keyOf(apiKey), null);
  return Buffer.concat([c.update(toXml(fields, 'root'), 'utf8'), c.final()]).toString('base64');
}

/** Throws when `req_info` was not encrypted with this key. */
export function decryptReqInfo(reqInfo: string, apiKey: string): Fields {
  const d = createDecipheriv('aes-256-ecb', keyOf(apiKey), null);
  const plain = Buffer.concat([d.update(Buffer.from(reqInfo, 'base64')), d.final()]);
  return parseXml(plain);
}
