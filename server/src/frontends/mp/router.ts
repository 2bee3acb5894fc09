/**
 * `/mp/api/*`: the payer mini-program's only server. No login and no secret on the page: the
 * router reads orders (4.2) and gets the payment arguments of the way the page pays with (`POST
 * /mp/api/pay`: 4.4 in the social app, a wallet's own mini-program or browser page elsewhere, as the
 * ways declare for the payer page) on the payer's behalf, signed as the app owning the order's
 * sub-merchant, and exchanges the login code for the open id itself.
 */
import { Router } from 'express';
import { PAY_VERSION } from '@kit/shared';
import { MP_PAY_ALIASES, mpOrderParamsSchema, mpOrderQuerySchema, mpPayRequestSchema, type MpPayRequest } from '@kit/shared/api/mp';
import { apiGroup } from '../../http/api-group';
import { validate } from '../../http/validate';
import type { RouteDeps } from '../../routes/deps';
import { noStore } from '../answers';
import { MpBackend } from './mp-backend';
import { PayerLogin, PLATFORM_LOGIN_URL } from './payer-login';

export function mpApiRoutes({ config, services, api }: RouteDeps): Router {
  const login = new PayerLogin({
    appId: config.MP_APPID,
    secret: config.MP_SECRET,
    // Unset MP_LOGIN_URL: the platform's stand-in of a development plug-in (the sandbox's), else the platform's own.
    loginUrl: () => config.MP_LOGIN_URL ?? (services.dev ? services.dev.plugin.payerLoginUrl(services.selfUrl() ?? '') : PLATFORM_LOGIN_URL),
    clock: services.clock,
  });
  const backend = new MpBackend(services, api, login);
  const r = Router();
  r.use(apiGroup(PAY_VERSION, '4kb'), noStore);

  r.get('/orders/:prepayId', async (req, res) => {
    const { prepayId } = validate(mpOrderParamsSchema, req.params, 'path');
    const { wait } = validate(mpOrderQuerySchema, req.query, 'query');
    // The page hanging up (or leaving) ends the held call upstream too.
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    try {
      const detail = await backend.detail(prepayId, { wait: wait === '1', signal: gone.signal });
      if (!res.writableEnded && !gone.signal.aborted) res.json(detail);
    } catch (e) {
      if (gone.signal.aborted) return;
      throw e;
    }
  });

  r.post('/pay', async (req, res) => {
    const body = validate(mpPayRequestSchema, req.body) as MpPayRequest;
    res.json(await backend.pay(body, { address: req.ip }));
  });

  // A way's own route from before `/pay` (its declaration's `page.alias`): the same call, the way fixed.
  for (const alias of MP_PAY_ALIASES) {
    r.post(alias.path, async (req, res) => {
      const body = validate(alias.body, req.body) as Record<string, string | undefined>;
      const request: MpPayRequest = { prepayId: body.prepayId!, way: alias.way, code: body[alias.codeField], returnUrl: body.returnUrl };
      res.json(await backend.pay(request, { address: req.ip }));
    });
  }

  return r;
}
