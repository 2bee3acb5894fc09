/**
 * `/mp/api/*`: the payer mini-program's only server. No login and no secret on the page: the
 * router reads orders (4.2) and gets payment arguments (4.4; in Alipay, 6.3's `alipayMini` and
 * `alipayWap`) on the payer's behalf, signed as the app owning the order's sub-merchant, and
 * exchanges the login code for the open id itself.
 */
import { Router } from 'express';
import { PAY_VERSION } from '@kit/shared';
import { mpAlipayPayRequestSchema, mpAlipayWapRequestSchema, mpOrderParamsSchema, mpOrderQuerySchema, mpPayRequestSchema } from '@kit/shared/api/mp';
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
    const { prepayId, code } = validate(mpPayRequestSchema, req.body);
    res.json(await backend.pay(prepayId, code, { address: req.ip }));
  });

  // The same page built for Alipay: its mini-program (`my.getAuthCode` → `my.tradePay`), and the H5 page in Alipay's browser.
  r.post('/alipay/pay', async (req, res) => {
    const { prepayId, authCode } = validate(mpAlipayPayRequestSchema, req.body);
    res.json(await backend.alipayPay(prepayId, authCode, { address: req.ip }));
  });
  r.post('/alipay/wap', async (req, res) => {
    const { prepayId, returnUrl } = validate(mpAlipayWapRequestSchema, req.body);
    res.json(await backend.alipayWap(prepayId, returnUrl));
  });

  return r;
}
