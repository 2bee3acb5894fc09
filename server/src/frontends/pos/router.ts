/**
 * `/pos/api/*`: the POS display's only server. JSON in and out, zod-validated, the cashier
 * identified by the httpOnly login cookie. It answers 401 (and clears the cookie) when the login
 * is no longer valid, so the display goes back to its login screen.
 */
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { KitError, PAY_VERSION } from '@kit/shared';
import {
  posBalanceQuerySchema,
  posCreateOrderSchema,
  posListOrdersSchema,
  posLoginSchema,
  posOrderIdSchema,
  posPointsCodeSchema,
  posPointsSessionSchema,
} from '@kit/shared/api/pos-schemas';
import { PARENT_MERCHANT_ID, POS_LOGIN_ID } from '@kit/shared/api/pos';
import { apiGroup } from '../../http/api-group';
import { validate } from '../../http/validate';
import { isSecure } from '../../http/secure-connection';
import type { RouteDeps } from '../../routes/deps';
import { clearLoginCookie, readCookie, setLoginCookie, POS_COOKIE, type CookieScope } from './cookies';
import { PosGateway, type Cashier } from './pos-gateway';

const ok = <T extends object>(data: T) => ({ version: PAY_VERSION, status: 'success' as const, ...data });

export function posApiRoutes({ config, services, selfClients }: RouteDeps): Router {
  const gw = new PosGateway(services, selfClients, { pointsSessionMs: config.POS_POINTS_SESSION_TTL });
  const scope: CookieScope = { path: `${config.BASE_PATH}/pos`, maxAgeMs: config.POS_SESSION_MAX_AGE };
  const r = Router();
  const noStore: RequestHandler = (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
  r.use(apiGroup(PAY_VERSION, '16kb'), noStore);

  /** Where a phone opens the mini-program's H5 page; by default this service as the display reached it. */
  const linkPrefix = (req: Request) => config.POS_MP_LINK_PREFIX ?? `${req.protocol}://${req.get('host')}${config.BASE_PATH}/mp/#/pages/pay/index?scene=`;

  const cashier: RequestHandler = async (req, res, next) => {
    try {
      res.locals.cashier = await gw.identify(readCookie(req, POS_COOKIE));
      next();
    } catch (e) {
      if (e instanceof KitError && e.httpStatus === 401) clearLoginCookie(req, res, scope);
      throw e;
    }
  };
  const who = (res: Response): Cashier => res.locals.cashier as Cashier;
  /** A 401 from a later call (the token was revoked meanwhile) also ends the cookie. */
  const guarded = (handler: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response, _next: NextFunction) => {
    try {
      await handler(req, res);
    } catch (e) {
      if (e instanceof KitError && e.error === 'login_invalid') clearLoginCookie(req, res, scope);
      throw e;
    }
  };

  r.post('/login', async (req, res) => {
    if (!isSecure(req, config.ALLOW_INSECURE_LOGIN_ON_LOOPBACK)) {
      throw new KitError('secure_connection_required', 'log in over HTTPS (passwords never travel in plain text)');
    }
    const body = validate(posLoginSchema, req.body);
    // Said in words the display can translate, not as a field path: a parent merchant cannot take
    // payments, and an id of no other shape belongs to nobody (the same answer as a wrong password).
    if (PARENT_MERCHANT_ID.test(body.userId)) throw new KitError('pos_not_sub_merchant');
    if (!POS_LOGIN_ID.test(body.userId)) throw new KitError('login_failed');
    const { token, session } = await gw.login(body.userId, body.pw);
    setLoginCookie(req, res, token, scope);
    res.json(ok({ session }));
  });

  r.post('/logout', async (req, res) => {
    await gw.logout(readCookie(req, POS_COOKIE));
    clearLoginCookie(req, res, scope);
    res.json(ok({}));
  });

  /**
   * "Who is logged in?" is a question, not a protected call: it answers 200 with `session: null`
   * (and `expired: true` when a cookie was there but its login is gone), so that opening the page
   * logged out is not an error. Every other endpoint answers 401.
   */
  r.get('/session', async (req, res) => {
    const token = readCookie(req, POS_COOKIE);
    if (!token) return void res.json(ok({ session: null }));
    try {
      const { merchantId, displayName, parentMerchantId } = await gw.identify(token);
      res.json(ok({ session: { merchantId, displayName, parentMerchantId } }));
    } catch (e) {
      if (!(e instanceof KitError) || e.httpStatus !== 401) throw e;
      clearLoginCookie(req, res, scope);
      res.json(ok({ session: null, expired: true }));
    }
  });

  r.post(
    '/orders',
    cashier,
    guarded(async (req, res) => {
      const { amount } = validate(posCreateOrderSchema, req.body);
      res.json(ok({ order: await gw.createOrder(who(res), amount, linkPrefix(req)) }));
    }),
  );

  r.get(
    '/orders',
    cashier,
    guarded(async (req, res) => {
      const { since } = validate(posListOrdersSchema, req.query, 'query');
      res.json(ok({ orders: await gw.listOrders(who(res), since) }));
    }),
  );

  r.get(
    '/orders/:prepayId',
    cashier,
    guarded(async (req, res) => {
      const { prepayId } = validate(posOrderIdSchema, req.params, 'path');
      res.json(ok({ order: await gw.getOrder(who(res), prepayId, linkPrefix(req)) }));
    }),
  );

  r.get(
    '/orders/:prepayId/wait',
    cashier,
    guarded(async (req, res) => {
      const { prepayId } = validate(posOrderIdSchema, req.params, 'path');
      // The display hanging up ends the held call upstream too.
      const gone = new AbortController();
      res.on('close', () => gone.abort());
      try {
        const detail = await gw.waitOrder(who(res), prepayId, gone.signal);
        if (!res.writableEnded && !gone.signal.aborted) res.json(detail);
      } catch (e) {
        if (gone.signal.aborted) return;
        throw e;
      }
    }),
  );

  r.post(
    '/orders/:prepayId/refund',
    cashier,
    guarded(async (req, res) => {
      const { prepayId } = validate(posOrderIdSchema, req.params, 'path');
      res.json(ok({ detail: await gw.refund(who(res), prepayId) }));
    }),
  );

  r.get(
    '/points/balance',
    cashier,
    guarded(async (req, res) => {
      const q = validate(posBalanceQuerySchema, req.query, 'query');
      res.json(ok(await gw.balance(who(res), q)));
    }),
  );

  r.post(
    '/points/sessions',
    cashier,
    guarded(async (req, res) => {
      const body = validate(posPointsSessionSchema, req.body);
      res.json(ok(await gw.startPoints(who(res), body)));
    }),
  );

  r.post(
    '/points/code',
    cashier,
    guarded(async (req, res) => {
      const { handle } = validate(posPointsCodeSchema, req.body);
      res.json(ok({ code: await gw.pointsCode(who(res), handle) }));
    }),
  );

  return r;
}
