/** Under /submerchant-pay. 4.1 create a prepay order and 4.2 its detail (optionally held until it leaves `active`). */
import { KitError, createPrepayRequestSchema, prepayDetailQuerySchema, prepayIdParamSchema } from '@kit/shared';
import { failBody } from '../http/errors';
import { validate } from '../http/validate';
import { signer } from '../http/signature';
import { callerGone } from '../http/caller-gone';
import type { RouteDeps } from './deps';
import type { ApiRoutes } from '../http/api-routes';

export function prepayRoutes(r: ApiRoutes, { services, signed, signedInService }: RouteDeps): void {
  // The replay guard's row is written with the order (one commit per creation).
  r.post('/', signedInService, async (req, res) => {
    const body = validate(createPrepayRequestSchema, req.body);
    res.json(await services.prepay.create(signer(res), body, res.locals.replay));
  });

  // An unknown, malformed or invisible id answers HTTP 200 with `status: "fail"`: the
  // 4.2 client loop re-calls at once on any non-200, so a 404 would make it spin.
  // Not an async function: a held call keeps one suspended frame, not two (heap per held call 8.6 → 7.6 KB, bench A/B).
  r.get('/prePay/:prepayId', signed, (req, res) => {
    const { waitForFinish } = validate(prepayDetailQuerySchema, req.query, 'query');
    const parsed = prepayIdParamSchema.safeParse(req.params);
    if (!parsed.success) return void res.json(failBody(notFound(req.params.prepayId), res));
    const wait = waitForFinish === '1';
    // A caller that hangs up ends its hold at once (only held calls need to know).
    const gone = wait ? callerGone(res) : undefined;
    return services.prepay.detail(signer(res), parsed.data.prepayId, { wait, signal: gone }).then(
      (detail) => {
        if (!res.writableEnded && !gone?.aborted) res.json(detail);
      },
      (e: unknown) => {
        if (!(e instanceof KitError && e.error === 'not_found')) throw e;
        res.json(failBody(e, res));
      },
    );
  });
}

const notFound = (id: unknown) => new KitError('not_found', `prepay order "${String(id).slice(0, 64)}" does not exist`);
