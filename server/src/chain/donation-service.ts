/**
 * Donations (4.9–4.11): projects and donation records are ledger items of types
 * `donation.project` and `donation.donate`, encrypted under the app's AppSecret.
 */
import { CHAIN_VERSION, KitError, MAX_DONATION_LOOKUP_IDS, type DonationIdsResponse, type DonationPendingResponse } from '@kit/shared';
import type { LedgerService } from './ledger-service';

export const DONATION_TYPES = { project: 'donation.project', donate: 'donation.donate' } as const;

export class DonationService {
  constructor(private readonly ledger: LedgerService) {}

  /** 4.9 / 4.10. Resubmitting the same id with the same content is accepted again (idempotent). */
  async submit(appId: string, kind: keyof typeof DONATION_TYPES, body: Record<string, unknown>): Promise<DonationPendingResponse> {
    await this.ledger.accept(appId, [{ type: DONATION_TYPES[kind], args: body }], { where: () => 'body' });
    return { version: CHAIN_VERSION, status: 'pending' };
  }

  /** 4.11. `pending` while any of the ids is queued; otherwise the confirmed ones' on-chain ids. */
  async onChainIds(appId: string, kind: keyof typeof DONATION_TYPES, originalIds: string[]): Promise<DonationIdsResponse | DonationPendingResponse> {
    if (originalIds.length > MAX_DONATION_LOOKUP_IDS) {
      throw new KitError('too_many_items', `at most ${MAX_DONATION_LOOKUP_IDS} ids per lookup, got ${originalIds.length}`);
    }
    const states = await this.ledger.states(appId, DONATION_TYPES[kind], originalIds);
    const ids: Record<string, string> = {};
    for (const id of originalIds) {
      const row = states.get(id);
      if (row?.status === 'pending') return { version: CHAIN_VERSION, status: 'pending' };
      if (row?.status === 'confirmed') ids[id] = row.chain_id;
    }
    return { version: CHAIN_VERSION, status: 'success', ids };
  }
}
