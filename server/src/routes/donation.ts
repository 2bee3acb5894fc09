/** Under /donation. 4.9 project, 4.10 donation (both encrypted onto the ledger), 4.11 on-chain ids. */
import { donationLookupSchema, donationProjectSchema, donationSchema } from '@kit/shared';
import { validate } from '../http/validate';
import { signer } from '../http/signature';
import type { RouteDeps } from './deps';
import type { ApiRoutes } from '../http/api-routes';

export function donationRoutes(r: ApiRoutes, { services, signed }: RouteDeps): void {
  const donations = services.chain.donations;

  r.post('/project', signed, async (req, res) => {
    const body = validate(donationProjectSchema, req.body);
    res.json(await donations.submit(signer(res), 'project', body));
  });

  r.post('/donate', signed, async (req, res) => {
    const body = validate(donationSchema, req.body);
    res.json(await donations.submit(signer(res), 'donate', body));
  });

  r.post('/fetchOnChainIds', signed, async (req, res) => {
    const body = validate(donationLookupSchema, req.body);
    res.json(await donations.onChainIds(signer(res), body.type, body.originalIds));
  });
}
