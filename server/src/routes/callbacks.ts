/** Under /callbacks (design 5.3): the callback operations API, signed by the app that owns the merchant. */
import { callbackListQuerySchema, callbackRecoverRequestSchema, callbackResendRequestSchema } from '@kit/shared';
import { validate } from '../http/validate';
import { signer } from '../http/signature';
import type { RouteDeps } from './deps';
import type { ApiRoutes } from '../http/api-routes';

export function callbackRoutes(r: ApiRoutes, { services, signed }: RouteDeps): void {
  r.get('', signed, async (req, res) => {
    res.json(await services.callbackOps.list(signer(res), validate(callbackListQuerySchema, req.query, 'query')));
  });

  r.post('/resend', signed, async (req, res) => {
    res.json(await services.callbackOps.resend(signer(res), validate(callbackResendRequestSchema, req.body).id));
  });

  r.post('/recover', signed, async (req, res) => {
    res.json(await services.callbackOps.recover(signer(res), validate(callbackRecoverRequestSchema, req.body)));
  });
}
