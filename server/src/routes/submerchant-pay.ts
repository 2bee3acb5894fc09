/** Under /submerchant-pay. 4.1 create a prepay order and 4.2 its detail (optionally held until it leaves `active`). */
import { createPrepayRequestSchema, prepayDetailQuerySchema, prepayIdParamSchema } from '@kit/shared';
import { validate } from '../http/validate';
import { signer } from '../http/signature';
import type { RouteDeps } from './deps';
import type { ApiRoutes } from '../http/api-routes';

export function prepayRoutes(r: ApiRoutes, { services, signed }: RouteDeps): void {
  r.post('/', signed, async (req, res) => {
    const body = validate(createPrepayRequestSchema, req.body);
    res.json(await services.prepay.create(signer(res), body));
  });

  r.get('/prePay/:prepayId', signed, async (req, res) => {
    const { prepayId } = validate(prepayIdParamSchema, req.params, 'path');
    const { waitForFinish } = validate(prepayDetailQuerySchema, req.query, 'query');
    const wait = waitForFinish === '1';
    // A caller that hangs up ends its hold at once (only held calls need to know).
    let gone: AbortController | undefined;
    if (wait) {
      gone = new AbortController();
      res.on('close', () => res.writableFinished || gone!.abort());
    }
    const detail = await services.prepay.detail(signer(res), prepayId, { wait, signal: gone?.signal });
    if (!res.writableEnded && !gone?.signal.aborted) res.json(detail);
  });
}
