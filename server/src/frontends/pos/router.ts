/**
 * `/pos/api/*`: the POS display's only server. JSON in and out, zod-validated, the cashier
 * identified by the httpOnly login cookie. It answers 401 (and clears the cookie) when the login
 * is no longer valid, so the display goes back to its login screen.
 */
import { Router, type Request } from 'express';
import { KitError, PAY_VERSION } from '@kit/shared';
import {
  posBalanceQuerySchema,
  posCreateOrderSchema,
  posListOrdersSchema,
  posLoginSchema,
  posOrderIdSchema,
  posPayCodeSchema,
  posPointsCodeSchema,
  posPointsSessionSchema,
} from '@kit/shared/api/pos-schemas';
import { PARENT_MERCHANT_ID, POS_LOGIN_ID, type PosOrder } from '@kit/shared/api/pos';
import { apiGroup } from '../../http/api-group';
import { validate } from '../../http/validate';
import type { RouteDeps } from '../../routes/deps';
import { loginSession, requireSecureLogin, sessionRoutes, setLoginCookie, type CookieScope } from '../login-session';
import { noStore, ok } from '../answers';
import { PosBackend, type Cashier } from './pos-backend';
import { developmentHelp } from './development-help';
import { listensOnAllAddresses } from '../../listen-addresses';

export const POS_COOKIE = 'pos_login';

export function posApiRoutes({ config, services, api }: RouteDeps): Router {
  const backend = new PosBackend(services, api, {
    pointsSessionMs: config.POS_POINTS_SESSION_TTL,
    miniProgramCode: config.POS_MP_CODE,
    codePayWaitMs: config.CODE_PAY_WAIT,
  });
  const scope: CookieScope = { path: `${config.BASE_PATH}/pos`, maxAgeMs: config.POS_SESSION_MAX_AGE, name: POS_COOKIE };
  const r = Router();
  r.use(apiGroup(PAY_VERSION, '16kb'), noStore);

  /** Where a phone opens the mini-program's H5 page; by default this service as the display reached it. */
  const linkPrefix = (req: Request) => config.POS_MP_LINK_PREFIX ?? `${req.protocol}://${req.get('host')}${config.BASE_PATH}/mp/#/pages/pay/index?scene=`;

  /** Where the one code for any wallet points (`/p/<prepayId>`, frontends/pages/payer-link.ts): this service as the display reached it. */
  const payerLinkBase = (req: Request) => `${req.protocol}://${req.get('host')}${config.BASE_PATH}`;

  const development = config.NODE_ENV !== 'production';
  // The network addresses are worth naming only when the service listens on them (HOST 0.0.0.0 or ::).
  const lan = listensOnAllAddresses(config.HOST) ? undefined : [];
  const withHelp = (req: Request, order: PosOrder): PosOrder =>
    development ? { ...order, development: developmentHelp(req, order.miniProgramLink, config.BASE_PATH, lan) } : order;

  const { load: cashier, guarded, who } = loginSession<Cashier>(scope, 'cashier', (token) => backend.identify(token));

  r.post('/login', async (req, res) => {
    requireSecureLogin(req, config.ALLOW_INSECURE_LOGIN_ON_LOOPBACK);
    const body = validate(posLoginSchema, req.body);
    // Said in words the display can translate, not as a field path: a parent merchant cannot take
    // payments, and an id of no other shape belongs to nobody (the same answer as a wrong password).
    if (PARENT_MERCHANT_ID.test(body.userId)) throw new KitError('pos_not_sub_merchant');
    if (!POS_LOGIN_ID.test(body.userId)) throw new KitError('login_failed');
    const { token, session } = await backend.login(body.userId, body.pw, { address: req.ip });
    setLoginCookie(req, res, token, scope);
    res.json(ok({ session }));
  });

  sessionRoutes(r, scope, {
    logout: (token) => backend.logout(token),
    session: async (token) => {
      const { merchantId, displayName, parentMerchantId } = await backend.identify(token);
      return { merchantId, displayName, parentMerchantId };
    },
  });

  r.post(
    '/orders',
    cashier,
    guarded(async (req, res) => {
      const { amount } = validate(posCreateOrderSchema, req.body);
      res.json(ok({ order: withHelp(req, await backend.createOrder(who(res), amount, linkPrefix(req), payerLinkBase(req))) }));
    }),
  );

  r.get(
    '/orders',
    cashier,
    guarded(async (req, res) => {
      const { since } = validate(posListOrdersSchema, req.query, 'query');
      res.json(ok({ orders: await backend.listOrders(who(res), since) }));
    }),
  );

  r.get(
    '/orders/:prepayId',
    cashier,
    guarded(async (req, res) => {
      const { prepayId } = validate(posOrderIdSchema, req.params, 'path');
      res.json(ok({ order: withHelp(req, await backend.getOrder(who(res), prepayId, linkPrefix(req), payerLinkBase(req))) }));
    }),
  );

  r.get(
    '/orders/:prepayId/mini-program-code',
    cashier,
    guarded(async (req, res) => {
      const { prepayId } = validate(posOrderIdSchema, req.params, 'path');
      const code = await backend.miniProgramCode(who(res), prepayId);
      res.type(code.contentType).send(code.image);
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
        const detail = await backend.waitOrder(who(res), prepayId, gone.signal);
        if (!res.writableEnded && !gone.signal.aborted) res.json(detail);
      } catch (e) {
        if (gone.signal.aborted) return;
        throw e;
      }
    }),
  );

  r.post(
    '/orders/:prepayId/code',
    cashier,
    guarded(async (req, res) => {
      const { prepayId } = validate(posOrderIdSchema, req.params, 'path');
      const { authCode } = validate(posPayCodeSchema, req.body);
      res.json(ok({ payment: await backend.payCode(who(res), prepayId, authCode) }));
    }),
  );

  r.post(
    '/orders/:prepayId/refund',
    cashier,
    guarded(async (req, res) => {
      const { prepayId } = validate(posOrderIdSchema, req.params, 'path');
      res.json(ok({ detail: await backend.refund(who(res), prepayId) }));
    }),
  );

  r.get(
    '/points/balance',
    cashier,
    guarded(async (req, res) => {
      const q = validate(posBalanceQuerySchema, req.query, 'query');
      res.json(ok(await backend.balance(who(res), q)));
    }),
  );

  r.post(
    '/points/sessions',
    cashier,
    guarded(async (req, res) => {
      const body = validate(posPointsSessionSchema, req.body);
      res.json(ok(await backend.startPoints(who(res), body)));
    }),
  );

  r.post(
    '/points/code',
    cashier,
    guarded(async (req, res) => {
      const { handle } = validate(posPointsCodeSchema, req.body);
      res.json(ok({ code: await backend.pointsCode(who(res), handle) }));
    }),
  );

  return r;
}
