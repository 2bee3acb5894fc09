/** Under /submerchant-pay/profitSharing (4.8): receivers, splits, their results, finish and amounts. Signed, by the owner app. */
import {
  addReceiverRequestSchema,
  finishSharingRequestSchema,
  outOrderNoSchema,
  prepayIdSchema,
  removeReceiverRequestSchema,
  splitDetailQuerySchema,
  splitRequestSchema,
} from '@kit/shared';
import { z } from 'zod';
import { validate } from '../http/validate';
import { signer } from '../http/signature';
import type { RouteDeps } from './deps';
import type { ApiRoutes } from '../http/api-routes';

export function profitSharingRoutes(r: ApiRoutes, { services, signed }: RouteDeps): void {
  const sharing = services.profitSharing;

  r.post('/profitSharing/receivers', signed, async (req, res) => {
    res.json(await sharing.addReceiver(signer(res), validate(addReceiverRequestSchema, req.body)));
  });

  r.post('/profitSharing/receivers/remove', signed, async (req, res) => {
    res.json(await sharing.removeReceiver(signer(res), validate(removeReceiverRequestSchema, req.body)));
  });

  r.post('/profitSharing/orders', signed, async (req, res) => {
    res.json(await sharing.split(signer(res), validate(splitRequestSchema, req.body)));
  });

  r.get('/profitSharing/orders/:outOrderNo', signed, async (req, res) => {
    const { outOrderNo } = validate(z.object({ outOrderNo: outOrderNoSchema }), req.params, 'path');
    const { prepayId } = validate(splitDetailQuerySchema, req.query, 'query');
    res.json(await sharing.detail(signer(res), prepayId, outOrderNo));
  });

  r.post('/profitSharing/finish', signed, async (req, res) => {
    res.json(await sharing.finish(signer(res), validate(finishSharingRequestSchema, req.body)));
  });

  r.get('/profitSharing/amounts/:prepayId', signed, async (req, res) => {
    const { prepayId } = validate(z.object({ prepayId: prepayIdSchema }), req.params, 'path');
    res.json(await sharing.amounts(signer(res), prepayId));
  });
}
