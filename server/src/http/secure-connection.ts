/** Passwords travel only over a secure connection (specification 5.7, DESIGN 2.2). */
import type { Request } from 'express';

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** TLS at this server, `X-Forwarded-Proto: https` from a trusted proxy, or loopback when allowed. */
export function isSecure(req: Request, allowLoopback: boolean): boolean {
  if (req.secure) return true;
  return allowLoopback && isLoopback(req.socket.remoteAddress) && !req.get('x-forwarded-for');
}
