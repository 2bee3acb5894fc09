/**
 * The login session of the front-end routers (POS, console): the login token lives only in an
 * httpOnly, SameSite=Strict cookie scoped to the front end's path, so page scripts cannot read it
 * and other sites cannot send it; a 401 anywhere ends the cookie.
 */
import { parse as parseCookies } from 'cookie';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { KitError } from '@kit/shared';
import { isSecure } from '../http/secure-connection';
import { ok } from './answers';

/** Reads one cookie from the Cookie header (with `cookie`, the parser Express itself uses to write them). */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.get('cookie');
  return header ? parseCookies(header)[name] : undefined;
}

export interface CookieScope {
  /** Path the cookie is sent to (the front end's prefix, including BASE_PATH). */
  path: string;
  maxAgeMs: number;
  /** The cookie's name: each front end has its own. */
  name: string;
}

export function setLoginCookie(req: Request, res: Response, token: string, scope: CookieScope): void {
  res.cookie(scope.name, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    path: scope.path,
    maxAge: scope.maxAgeMs,
  });
}

export function clearLoginCookie(req: Request, res: Response, scope: CookieScope): void {
  res.clearCookie(scope.name, { httpOnly: true, sameSite: 'strict', secure: req.secure, path: scope.path });
}

/** Passwords travel only over a secure connection (plain HTTP on loopback in development when allowed). */
export function requireSecureLogin(req: Request, allowLoopback: boolean): void {
  if (!isSecure(req, allowLoopback)) throw new KitError('secure_connection_required', 'log in over HTTPS (passwords never travel in plain text)');
}

/**
 * `load` resolves the cookie's login into `res.locals[key]` (401 without one); `guarded` wraps a
 * handler so that a login revoked meanwhile (a later `login_invalid`) also ends the cookie.
 */
export function loginSession<T>(scope: CookieScope, key: string, identify: (token: string | undefined) => Promise<T>) {
  const load: RequestHandler = async (req, res, next) => {
    try {
      res.locals[key] = await identify(readCookie(req, scope.name));
      next();
    } catch (e) {
      if (e instanceof KitError && e.httpStatus === 401) clearLoginCookie(req, res, scope);
      throw e;
    }
  };
  const guarded = (handler: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response, _next: NextFunction) => {
    try {
      await handler(req, res);
    } catch (e) {
      if (e instanceof KitError && e.error === 'login_invalid') clearLoginCookie(req, res, scope);
      throw e;
    }
  };
  return { load, guarded, who: (res: Response): T => res.locals[key] as T };
}

/**
 * `POST /logout` and `GET /session` of a front end. "Who is logged in?" is a question, not a
 * protected call: it answers 200 with `session: null` (and `expired: true` when a cookie was there
 * but its login is gone), so that opening the page logged out is not an error.
 */
export function sessionRoutes<S>(
  r: Router,
  scope: CookieScope,
  login: { logout(token: string | undefined): Promise<void>; session(token: string): Promise<S> },
): void {
  r.post('/logout', async (req, res) => {
    await login.logout(readCookie(req, scope.name));
    clearLoginCookie(req, res, scope);
    res.json(ok({}));
  });
  r.get('/session', async (req, res) => {
    const token = readCookie(req, scope.name);
    if (!token) return void res.json(ok({ session: null }));
    try {
      res.json(ok({ session: await login.session(token) }));
    } catch (e) {
      if (!(e instanceof KitError) || e.httpStatus !== 401) throw e;
      clearLoginCookie(req, res, scope);
      res.json(ok({ session: null, expired: true }));
    }
  });
}
