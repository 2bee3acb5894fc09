/** Under /common-chain-upload. 4.14 batch upload, 4.15 on-chain id lookup, and the inclusion proof of an item. */
import { CHAIN_VERSION, chainIdSchema, lookupRequestSchema, uploadRequestSchema, type LookupResponse, type UploadResponse } from '@kit/shared';
import { z } from 'zod';
import { validate } from '../http/validate';
import { signer } from '../http/signature';
import type { RouteDeps } from './deps';
import type { ApiRoutes } from '../http/api-routes';

export function chainRoutes(r: ApiRoutes, { services, signed }: RouteDeps): void {
  const ledger = services.chain.ledger;

  r.post('/', signed, async (req, res) => {
    const body = validate(uploadRequestSchema, req.body);
    await ledger.accept(signer(res), body.items);
    res.json({ version: CHAIN_VERSION, status: 'pending' } satisfies UploadResponse);
  });

  r.post('/fetchOnChainIds', signed, async (req, res) => {
    const body = validate(lookupRequestSchema, req.body);
    const items = await ledger.lookup(signer(res), body.items);
    res.json({ version: CHAIN_VERSION, status: 'success', items } satisfies LookupResponse);
  });

  r.get('/proof/:id', signed, async (req, res) => {
    const { id } = validate(z.object({ id: chainIdSchema }), req.params, 'path');
    res.json(await ledger.proof(signer(res), id));
  });
}
