/**
 * AEAD_AES_256_GCM under the APIv3 key (32 ASCII characters used as the AES-256 key): notification
 * resources and downloaded platform certificates. `ciphertext` is base64 of the encrypted bytes with
 * the 16-byte tag appended; `nonce` (12 characters) and `associated_data` are plain text.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';

export const AEAD_ALGORITHM = 'AEAD_AES_256_GCM';
const TAG_BYTES = 16;

export class AeadError extends Error {}

export interface EncryptedResource {
  algorithm: string;
  ciphertext: string;
  nonce: string;
  associated_data?: string;
  original_type?: string;
}

function aesKey(apiV3Key: string): Buffer {
  const key = Buffer.from(apiV3Key, 'utf8');
  if (key.length !== 32) throw new AeadError(`the APIv3 key must be 32 bytes, it has ${key.length}`);
  return key;
}

export function aeadDecrypt(resource: EncryptedResource, apiV3Key: string): string {
  if (resource.algorithm !== AEAD_ALGORITHM) throw new AeadError(`algorithm ${resource.algorithm} is not ${AEAD_ALGORITHM}`);
  return gcmOpen(resource, aesKey(apiV3Key));
}

/**
 * The GCM opening itself, for a key of any AES size: the Go SDK's published notification vector was
 * made with a 16-byte key (AES-128), which checks the same layout of ciphertext, tag, nonce and AAD.
 */
export function gcmOpen(resource: Omit<EncryptedResource, 'algorithm'>, key: Buffer): string {
  const data = Buffer.from(resource.ciphertext ?? '', 'base64');
  if (data.length <= TAG_BYTES || !resource.nonce) throw new AeadError('ciphertext or nonce missing');
  try {
    const decipher = createDecipheriv(`aes-${key.length * 8}-gcm` as 'aes-256-gcm', key, Buffer.from(resource.nonce, 'utf8'), { authTagLength: TAG_BYTES });
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    decipher.setAAD(Buffer.from(resource.associated_data ?? '', 'utf8'));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch (e) {
    if (e instanceof AeadError) throw e;
    throw new AeadError('the resource does not decrypt under the APIv3 key (tampered, or another key)');
  }
}

/** The platform's side (the sandbox): base64 of ciphertext and tag. */
export function aeadEncrypt(plaintext: string, apiV3Key: string, nonce: string, associatedData: string): string {
  const cipher = createCipheriv('aes-256-gcm', aesKey(apiV3Key), Buffer.from(nonce, 'utf8'), { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  return Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64');
}
