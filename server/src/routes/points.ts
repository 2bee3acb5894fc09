/** Under /fungible-token. 4.12 balance and 4.13 deduction code; every parameter is a query field. */
import { balanceQuerySchema, deductionCodeQuerySchema } from '@kit/shared';
import { validate } from '../http/validate';
import { signer } from '../http/signature';
import type { RouteDeps } from './deps';
import type { ApiRoutes } from '../http/api-routes';

export function pointsRoutes(r: ApiRoutes, { services, signed }: RouteDeps): void {
  const points = services.chain.points;

  r.get('/balance', signed, async (req, res) => {
    const q = validate(balanceQuerySchema, req.query, 'query');
    res.json(await points.balance(signer(res), q));
  });

  r.get('/chainPay', signed, async (req, res) => {
    const q = validate(deductionCodeQuerySchema, req.query, 'query');
    res.json(await points.deductionCode(signer(res), q));
  });
}
