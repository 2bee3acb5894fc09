/**
 * The cashier's login token lives only in an httpOnly, SameSite=Strict cookie scoped to the POS
 * path: page scripts cannot read it and other sites cannot send it.
 */
import { parse as parseCookies } from 'cookie';
import type { Request, Response } from 'express';

export const POS_COOKIE = 'pos_login';

/** Reads one cookie from the Cookie header (with `cookie`, the parser Express itself uses to write them). */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.get('cookie');
  return header ? parseCookies(header)[name] : undefined;
}

export interface CookieScope {
  /** Path the cookie is sent to (the POS prefix, including BASE_PATH). */
  path: string;
  maxAgeMs: number;
}

export function setLoginCookie(req: Request, res: Response, token: string, scope: CookieScope): void {
  res.cookie(POS_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    path: scope.path,
    maxAge: scope.maxAgeMs,
  });
}

export function clearLoginCookie(req: Request, res: Response, scope: CookieScope): void {
  res.clearCookie(POS_COOKIE, { httpOnly: true, sameSite: 'strict', secure: req.secure, path: scope.path });
}
