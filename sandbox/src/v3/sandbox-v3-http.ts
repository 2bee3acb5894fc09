/**
 * The wire rules of the sandbox's API v3 platform: every request is checked against the merchant's
 * `Authorization` (WECHATPAY2-SHA256-RSA2048: merchant number, certificate serial, a timestamp
 * within 5 minutes, the signature over method, target, timestamp, nonce and body), refused with 401
 * `SIGN_ERROR` otherwise; every answer, errors included, carries a `Request-ID` and is signed
 * (`Wechatpay-Timestamp/-Nonce/-Signature/-Serial`) with the platform key, naming the public-key id
 * or the certificate serial as the `v3Serial` fault says.
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { platformHeaders, readAuthorization, requestVerifies, serialOf, TIMESTAMP_WINDOW_MS } from '../protocol/v3-rules';
import type { PlatformSigning, SandboxV3Keys } from './sandbox-v3-keys';

/** A refusal in the v3 shape: this HTTP status and `{code, message}`. */
export class V3Fail extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The four signature headers of a body, as the platform sends them on answers and notifications. */
export function platformSignature(signing: PlatformSigning, body: string, now: number): Record<string, string> {
  return platformHeaders(body, signing, now);
}

/** Sends a signed answer: JSON, or nothing (204). */
export function sendSigned(res: Response, signing: PlatformSigning, status: number, body: object | null, now: number): void {
  const text = body === null ? '' : JSON.stringify(body);
  res.status(status);
  res.set({ 'request-id': requestId(res), ...platformSignature(signing, text, now) });
  if (body === null) return void res.end();
  res.type('application/json').send(text);
}

/** One `Request-ID` per call, as the platform hands out for support requests. */
export function requestId(res: Response): string {
  // Not the service's own request id (`x-request-id`): the platform's, in the platform's own form.
  const locals = res.locals as { platformRequestId?: string };
  locals.platformRequestId ??= randomUUID().replace(/-/g, '').toUpperCase();
  return locals.platformRequestId;
}

/**
 * The merchant number that signed the request, or a 401 `SIGN_ERROR`. The signed target is the
 * path after the gateway base (`/v3/…?query`, what the kit signs, as on the platform's own domain);
 * a client whose base URL ends in `/sandbox/` signs the whole path of its URL, which is accepted too.
 */
export function checkAuthorization(req: Request, body: string, keys: SandboxV3Keys, now: number): string {
  const parts = readAuthorization(req.get('authorization'));
  if (!parts)
    throw new V3Fail(401, 'SIGN_ERROR', 'Authorization is missing or not WECHATPAY2-SHA256-RSA2048 with mchid, nonce_str, signature, timestamp and serial_no');
  if (parts.mchid !== keys.merchant.mchid) throw new V3Fail(401, 'SIGN_ERROR', 'mchid is not this service provider');
  if (serialOf(parts.serial_no) !== keys.merchant.serial)
    throw new V3Fail(401, 'SIGN_ERROR', 'serial_no is not the certificate serial of the merchant API key');
  if (Math.abs(now - Number(parts.timestamp) * 1000) > TIMESTAMP_WINDOW_MS) throw new V3Fail(401, 'SIGN_ERROR', 'timestamp is not within 5 minutes of now');
  const target = req.originalUrl.slice(req.baseUrl.length - '/v3'.length);
  const targets = [target, req.originalUrl];
  if (!targets.some((t) => requestVerifies(parts, req.method, t, body, keys.merchant.publicKey)))
    throw new V3Fail(401, 'SIGN_ERROR', 'the signature does not verify with the merchant API key');
  return parts.mchid;
}
