/** Passwords travel only over a secure connection (specification 5.7). */
import type { Request } from 'express';

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/**
 * Headers a proxy adds for the client behind it. Any of them, even empty, means the request came
 * through something on this machine on behalf of someone who may be anywhere: not a local caller.
 */
const FORWARDING_HEADERS = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-forwarded-server',
  'x-real-ip',
  'x-client-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'via',
];

export function isForwarded(req: Request): boolean {
  return FORWARDING_HEADERS.some((h) => req.headers[h] !== undefined);
}

/** TLS at this server, `X-Forwarded-Proto: https` from a trusted proxy, or a direct loopback caller when allowed. */
export function isSecure(req: Request, allowLoopback: boolean): boolean {
  if (req.secure) return true;
  return allowLoopback && isLoopback(req.socket.remoteAddress) && !isForwarded(req);
}
