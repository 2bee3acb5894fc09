/** Random identifiers and tokens. */
import { createHash, randomBytes, randomInt } from 'node:crypto';

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters of [0-9A-Za-z], uniformly random. */
export function randomAlnum(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALNUM[randomInt(ALNUM.length)];
  return out;
}

/** 32 random bytes, base64url: login tokens and app secrets. */
export const randomToken = (): string => randomBytes(32).toString('base64url');

export const sha256Hex = (value: string | Buffer): string => createHash('sha256').update(value).digest('hex');
