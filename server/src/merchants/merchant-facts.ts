/**
 * Merchant facts read by every order creation and detail read, kept in memory for a moment. Owner
 * apps and parents never change (specification 2.2) and names have no endpoint that changes them;
 * only the disabled flags do, so an entry lives 2 s: disabling a merchant takes effect on other
 * instances within that time (at once on this one). What it saves: docs/performance.md, "What the speed tricks buy".
 */
import type { Clock } from '@kit/shared/clock';
import type { MerchantStore } from './merchant-store';

type Facts = NonNullable<Awaited<ReturnType<MerchantStore['findWithParent']>>>;

export class MerchantFacts {
  private readonly cache = new Map<string, { facts: Facts | undefined; until: number }>();

  constructor(
    private readonly store: MerchantStore,
    private readonly clock: Clock,
    private readonly ttlMs = 2_000,
  ) {}

  async get(id: string): Promise<Facts | undefined> {
    const now = this.clock.now();
    const hit = this.cache.get(id);
    if (hit && hit.until > now) return hit.facts;
    const facts = await this.store.findWithParent(id);
    if (this.cache.size >= 50_000) this.cache.clear();
    // Unknown ids are not remembered: the merchant may be created the next moment.
    if (facts) this.cache.set(id, { facts, until: now + this.ttlMs });
    return facts;
  }

  /** After a change of a merchant: its entry and its sub-merchants' entries (they carry its flags). */
  forget(id: string): void {
    for (const [key, { facts }] of this.cache) if (key === id || facts?.parent_merchant_id === id) this.cache.delete(key);
  }
}
