/**
 * Alipay's open-platform signature rules (protocol 1.0, RSA2: SHA256withRSA, base64), as Alipay
 * publishes them ("自行实现签名"), written for the sandbox's side of the wire apart from the kit's
 * own code; `alipay-rules.test.ts` checks each against the official `alipay-sdk`:
 * - a request is signed over every non-empty parameter but `sign` (so `sign_type` is covered),
 *   sorted by name, written `k=v` with the raw values and joined with `&`;
 * - an answer `{"<method>_response":{…},"sign":"…"}` is signed over the node's text as sent;
 * - a notification (and the WAP page's return) is signed like a request but without `sign_type`.
 */
import { createSign, createVerify, type KeyObject } from 'node:crypto';

export type Params = Record<string, string>;

/** The text a signature covers: the non-empty parameters but the excluded ones, sorted, `k=v&…`. */
export const signingText = (params: Record<string, string | undefined>, exclude: readonly string[] = ['sign']): string =>
  Object.keys(params)
    .filter((k) => !exclude.includes(k) && params[k] !== undefined && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');

export const rsa2 = (text: string, privateKey: KeyObject): string => createSign('RSA-SHA256').update(text, 'utf8').sign(privateKey, 'base64');

export function rsa2Verifies(text: string, signature: string | undefined, publicKey: KeyObject): boolean {
  if (!signature) return false;
  try {
    return createVerify('RSA-SHA256').update(text, 'utf8').verify(publicKey, signature, 'base64');
  } catch {
    return false;
  }
}

/** Whether a request's parameters are signed by the application's key. */
export const requestVerifies = (params: Params, appPublicKey: KeyObject): boolean => rsa2Verifies(signingText(params), params.sign, appPublicKey);

/** A notification's form (or a return's parameters) with `sign_type` and the `sign` Alipay adds. */
export const signedNotification = (form: Params, alipayPrivateKey: KeyObject): Params => ({
  ...form,
  sign_type: 'RSA2',
  sign: rsa2(signingText(form, ['sign', 'sign_type']), alipayPrivateKey),
});
