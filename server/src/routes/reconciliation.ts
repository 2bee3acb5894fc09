/** `GET /reconciliation` and `GET /reconciliation/<date>` (docs/reconciliation.md): reconciled days as a merchant app may read them. Signed. */
import { PAY_VERSION, reconciliationDateSchema, reconciliationListQuerySchema } from '@kit/shared';
import { z } from 'zod';
import { validate } from '../http/validate';
import { signer } from '../http/signature';
import type { RouteDeps } from './deps';
import type { ApiRoutes } from '../http/api-routes';

export function reconciliationRoutes(r: ApiRoutes, { services, signed }: RouteDeps): void {
  r.get('/', signed, async (req, res) => {
    const q = validate(reconciliationListQuerySchema, req.query, 'query');
    const reports = await services.reconciliation.listForApp(signer(res), Number(q.limit ?? 30), q.before);
    res.json({ version: PAY_VERSION, status: 'success', data: { reports } });
  });

  r.get('/:date', signed, async (req, res) => {
    const { date } = validate(z.object({ date: reconciliationDateSchema }), req.params, 'path');
    res.json({ version: PAY_VERSION, status: 'success', data: await services.reconciliation.forApp(signer(res), date) });
  });
}
