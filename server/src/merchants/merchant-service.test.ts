/**
 * Effective payment parameters read at the same moment share one read (a rush's callbacks of one
 * shop), and never one begun before a change made here.
 */
import { systemClock } from '@kit/shared/clock';
import { MerchantService } from './merchant-service';
import type { MerchantStore } from './merchant-store';
import type { AppService } from '../apps/app-service';
import type { MerchantFacts } from './merchant-facts';
import type { LoginThrottle } from '../security/login-throttle';
import type { OutboundPolicy } from '../security/outbound-url';

type Rows = Awaited<ReturnType<MerchantStore['paramsWithParent']>>;

/** A store whose parameter reads stay in flight until the test answers them. */
function fakeStore() {
  let params: Record<string, unknown> = { socialMchId: '1900000001' };
  const reads: Array<{ key: string; answer: () => void }> = [];
  const store = {
    paramsWithParent: (id: string, channel: string) =>
      new Promise<Rows>((resolve) => {
        const rows = [{ parent_merchant_id: null, merchant_id: id, params_json: JSON.stringify(params) }] as unknown as Rows;
        reads.push({ key: `${channel} ${id}`, answer: () => resolve(rows) });
      }),
    findWithParent: async (id: string) => ({ id, app_id: 'app1', profit_sharing_contracted: 0 }),
    mergePaymentParams: async (_id: string, _channel: string, merge: (current: Record<string, unknown>) => Record<string, unknown>) => {
      params = merge(params);
    },
  };
  return { store: store as unknown as MerchantStore, reads };
}

function service(store: MerchantStore): MerchantService {
  const outbound = { checkUrl: async () => undefined } as unknown as OutboundPolicy;
  return new MerchantService(store, {} as AppService, {} as MerchantFacts, {} as LoginThrottle, outbound, systemClock);
}

describe('effective payment parameters', () => {
  it('asked for together, are read once; asked for after the answer, are read again', async () => {
    const { store, reads } = fakeStore();
    const merchants = service(store);
    const asked = [merchants.effectivePaymentParams('SM1', 'SocialNative'), merchants.effectivePaymentParams('SM1', 'SocialNative')];
    const other = merchants.effectivePaymentParams('SM2', 'SocialNative');
    expect(reads.map((r) => r.key)).toEqual(['SocialNative SM1', 'SocialNative SM2']);
    for (const r of reads) r.answer();
    const [a, b] = await Promise.all(asked);
    expect(a).toEqual({ socialMchId: '1900000001' });
    expect(b).toEqual(a);
    expect(b).not.toBe(a); // each caller gets its own object
    await other;

    const later = merchants.effectivePaymentParams('SM1', 'SocialNative');
    expect(reads).toHaveLength(3);
    reads[2].answer();
    await later;
  });

  it('asked for after a change, never share a read begun before it', async () => {
    const { store, reads } = fakeStore();
    const merchants = service(store);
    const before = merchants.effectivePaymentParams('SM1', 'SocialNative');
    await merchants.setPaymentParams('app1', 'SM1', 'SocialNative', { socialMchId: '1900000002' });
    const after = merchants.effectivePaymentParams('SM1', 'SocialNative');
    expect(reads).toHaveLength(2);
    for (const r of reads) r.answer();
    await before;
    expect(await after).toEqual({ socialMchId: '1900000002' });
  });
});
