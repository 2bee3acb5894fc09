/**
 * `/console/api/*`: the merchant console's only server (design 5.3). JSON in and out, zod-validated,
 * the merchant identified by an httpOnly login cookie of its own. It answers 401 (and clears the
 * cookie) when the login is no longer valid, so the console goes back to its login screen.
 */
import { Router } from 'express';
import { PAY_VERSION } from '@kit/shared';
import {
  consoleCallbackIdSchema,
  consoleCallbacksQuerySchema,
  consoleLoginSchema,
  consoleOrderIdSchema,
  consoleOrdersQuerySchema,
  consoleReconciliationDateSchema,
  consoleRecoverSchema,
} from '@kit/shared/api/console-schemas';
import { apiGroup } from '../../http/api-group';
import { validate } from '../../http/validate';
import type { RouteDeps } from '../../routes/deps';
import { loginSession, requireSecureLogin, sessionRoutes, setLoginCookie, type CookieScope } from '../login-session';
import { noStore, ok } from '../answers';
import { ConsoleBackend } from './console-backend';
import { ConsoleIdentity, type ConsoleUser } from './console-identity';

export const CONSOLE_COOKIE = 'console_login';

export function consoleApiRoutes({ config, services, api }: RouteDeps): Router {
  const backend = new ConsoleBackend(services, api);
  const identity = new ConsoleIdentity(services);
  const scope: CookieScope = { path: `${config.BASE_PATH}/console`, maxAgeMs: config.CONSOLE_SESSION_MAX_AGE, name: CONSOLE_COOKIE };
  const r = Router();
  r.use(apiGroup(PAY_VERSION, '16kb'), noStore);

  const { load: user, guarded, who } = loginSession<ConsoleUser>(scope, 'consoleUser', (token) => identity.identify(token));

  r.post('/login', async (req, res) => {
    requireSecureLogin(req, config.ALLOW_INSECURE_LOGIN_ON_LOOPBACK);
    const body = validate(consoleLoginSchema, req.body);
    const token = await identity.login(body.userId.trim(), body.pw, { address: req.ip });
    const session = identity.session(await identity.identify(token));
    setLoginCookie(req, res, token, scope);
    res.json(ok({ session }));
  });

  sessionRoutes(r, scope, { logout: (token) => identity.logout(token), session: async (token) => identity.session(await identity.identify(token)) });

  r.get(
    '/orders',
    user,
    guarded(async (req, res) => {
      res.json(ok({ orders: await backend.orders(who(res), validate(consoleOrdersQuerySchema, req.query, 'query')) }));
    }),
  );

  r.get(
    '/orders/:prepayId',
    user,
    guarded(async (req, res) => {
      const { prepayId } = validate(consoleOrderIdSchema, req.params, 'path');
      res.json(ok({ order: await backend.order(who(res), prepayId) }));
    }),
  );

  r.post(
    '/orders/:prepayId/refund',
    user,
    guarded(async (req, res) => {
      const { prepayId } = validate(consoleOrderIdSchema, req.params, 'path');
      res.json(ok({ order: await backend.refund(who(res), prepayId) }));
    }),
  );

  r.get(
    '/callbacks',
    user,
    guarded(async (req, res) => {
      const { state, prepayId } = validate(consoleCallbacksQuerySchema, req.query, 'query');
      res.json(ok({ callbacks: await backend.callbacks(who(res), state, prepayId) }));
    }),
  );

  r.post(
    '/callbacks/:id/resend',
    user,
    guarded(async (req, res) => {
      const { id } = validate(consoleCallbackIdSchema, req.params, 'path');
      res.json(ok({ resent: await backend.resend(who(res), id) }));
    }),
  );

  r.post(
    '/callbacks/recover',
    user,
    guarded(async (req, res) => {
      const { since, until } = validate(consoleRecoverSchema, req.body);
      res.json(ok({ resent: await backend.recover(who(res), since, until) }));
    }),
  );

  r.get(
    '/reconciliation',
    user,
    guarded(async (_req, res) => {
      res.json(ok({ days: await backend.reconciliations(who(res)) }));
    }),
  );

  r.get(
    '/reconciliation/:date',
    user,
    guarded(async (req, res) => {
      const { date } = validate(consoleReconciliationDateSchema, req.params, 'path');
      res.json(ok({ reports: await backend.reconciliation(who(res), date) }));
    }),
  );

  // Reconcile now: the daily job's run of one day, at once (docs/console.md).
  r.post(
    '/reconciliation/:date/run',
    user,
    guarded(async (req, res) => {
      const { date } = validate(consoleReconciliationDateSchema, req.params, 'path');
      res.json(ok({ runs: await backend.reconcileNow(who(res), date) }));
    }),
  );

  r.get('/receiver', user, (_req, res) => {
    res.json(ok({ received: backend.received(who(res)) }));
  });

  return r;
}
