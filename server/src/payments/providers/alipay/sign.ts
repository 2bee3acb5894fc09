/**
 * RSA2 of Alipay's open platform (opendocs "自行实现签名"): SHA256withRSA, base64.
 * - Requests: every parameter with a value except `sign` (so `sign_type` is signed), sorted by name
 *   (ASCII), written `k=v` with raw values, joined with `&`.
 * - Answers: the value of the response node (`alipay_trade_precreate_response`, or `error_response`)
 *   exactly as its JSON text was received (Alipay writes `/` as `\/`; re-serialised JSON does not
 *   verify), with `sign` beside it.
 * - Asynchronous notifications: the form's fields except `sign` and `sign_type`, sorted and joined the
 *   same way over the decoded values.
 */
import { createSign, createVerify, type KeyObject } from 'node:crypto';

export type Params = Record<string, string>;

/** The text a request's or notification's signature covers. */
export function signContent(params: Record<string, string | undefined>, exclude: readonly string[] = ['sign']): string {
  return Object.keys(params)
    .filter((k) => !exclude.includes(k) && params[k] !== undefined && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
}

export function rsa2Sign(content: string, privateKey: KeyObject): string {
  return createSign('RSA-SHA256').update(content, 'utf8').sign(privateKey, 'base64');
}

export function rsa2Verify(content: string, sign: string | undefined, publicKey: KeyObject): boolean {
  if (typeof sign !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(sign)) return false;
  try {
    return createVerify('RSA-SHA256').update(content, 'utf8').verify(publicKey, sign, 'base64');
  } catch {
    return false;
  }
}

/** The parameters with their `sign`. */
export function signRequest(params: Params, privateKey: KeyObject): Params {
  return { ...params, sign: rsa2Sign(signContent(params), privateKey) };
}

export class AnswerFormatError extends Error {}

/**
 * The raw text of each value of a top-level JSON object, by key, as it stands in `raw`. The JSON is
 * also parsed in full, so that text which is not JSON is refused.
 */
export function topLevelValues(raw: string): Map<string, string> {
  try {
    JSON.parse(raw);
  } catch (e) {
    throw new AnswerFormatError(`the answer is not JSON: ${(e as Error).message}`);
  }
  const out = new Map<string, string>();
  let i = skipWs(raw, 0);
  if (raw[i] !== '{') throw new AnswerFormatError('the answer is not a JSON object');
  i = skipWs(raw, i + 1);
  if (raw[i] === '}') return out;
  for (;;) {
    const keyEnd = stringEnd(raw, i);
    const key = JSON.parse(raw.slice(i, keyEnd)) as string;
    i = skipWs(raw, keyEnd);
    i = skipWs(raw, i + 1); // ':'
    const end = valueEnd(raw, i);
    out.set(key, raw.slice(i, end));
    i = skipWs(raw, end);
    if (raw[i] === ',') {
      i = skipWs(raw, i + 1);
      continue;
    }
    return out;
  }
}

const skipWs = (s: string, i: number): number => {
  while (i < s.length && (s[i] === ' ' || s[i] === '\n' || s[i] === '\r' || s[i] === '\t')) i++;
  return i;
};

/** Index just past the JSON string starting at `i`. */
function stringEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '"') return j + 1;
  }
  throw new AnswerFormatError('unterminated string');
}

/** Index just past the JSON value starting at `i` (the text is known to be valid JSON). */
function valueEnd(s: string, i: number): number {
  if (s[i] === '"') return stringEnd(s, i);
  if (s[i] === '{' || s[i] === '[') {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const c = s[j];
      if (c === '"') j = stringEnd(s, j) - 1;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    throw new AnswerFormatError('unterminated value');
  }
  let j = i;
  while (j < s.length && !',}] \n\r\t'.includes(s[j])) j++;
  return j;
}

/** What an answer of `method` holds: its node's raw text, parsed, and the fields beside it. */
export interface RawAnswer {
  /** `alipay_trade_precreate_response`, or `error_response` when the gateway refused the call. */
  nodeName: string;
  nodeText: string;
  node: Record<string, unknown>;
  sign?: string;
  /** Certificate mode: the SN of the Alipay certificate that signed. */
  alipayCertSn?: string;
}

export const responseNodeName = (method: string): string => `${method.replace(/\./g, '_')}_response`;

export function readAnswer(raw: string, method: string): RawAnswer {
  const values = topLevelValues(raw);
  const wanted = responseNodeName(method);
  const nodeName = values.has(wanted) ? wanted : values.has('error_response') ? 'error_response' : null;
  if (!nodeName) throw new AnswerFormatError(`the answer has no ${wanted}`);
  const nodeText = values.get(nodeName)!;
  const node: unknown = JSON.parse(nodeText);
  if (!node || typeof node !== 'object' || Array.isArray(node)) throw new AnswerFormatError(`${nodeName} is not an object`);
  const str = (k: string): string | undefined => {
    const v = values.get(k);
    if (v === undefined) return undefined;
    const parsed: unknown = JSON.parse(v);
    return typeof parsed === 'string' ? parsed : undefined;
  };
  return { nodeName, nodeText, node: node as Record<string, unknown>, sign: str('sign'), alipayCertSn: str('alipay_cert_sn') };
}

/**
 * Whether a notification's form is signed by `publicKey`. Alipay signs the fields without `sign`
 * and `sign_type`; the official SDKs also accept a signature that covers `sign_type` (their
 * `rsaCheckV2`, used by some of Alipay's other notifications), and so does this, still under
 * Alipay's key.
 */
export function verifyNotification(form: Params, publicKey: KeyObject): boolean {
  if (form.sign_type !== undefined && form.sign_type !== 'RSA2') return false;
  if (rsa2Verify(signContent(form, ['sign', 'sign_type']), form.sign, publicKey)) return true;
  return form.sign_type !== undefined && rsa2Verify(signContent(form, ['sign']), form.sign, publicKey);
}

/** Signs a notification as Alipay does (for the sandbox): `sign_type` is not covered. */
export function signNotification(form: Params, privateKey: KeyObject): Params {
  return { ...form, sign_type: 'RSA2', sign: rsa2Sign(signContent(form, ['sign', 'sign_type']), privateKey) };
}
