/**
 * Profit sharing (4.8) as the kit asks for it, over calls answered in protocol fields (protocol v2's
 * own, and API v3's read into them): receivers per merchant account, splits, their results, and
 * finishing an order's sharing (what is still frozen, then the finish).
 */
import { isKitError, KitError, type ReceiverResult } from '@kit/shared';
import type { ProfitSharing, SplitFacts } from '../provider';
import { outcome } from './facts';
import type { MerchantFields, ChannelAdapter, ProfitSharingCalls } from './types';
import { parseChinaTime } from '../china-time';

const RESULTS: Record<string, ReceiverResult> = { PENDING: 'pending', SUCCESS: 'success', CLOSED: 'closed' };

export function profitSharingOf(adapter: ChannelAdapter, calls: () => ProfitSharingCalls): ProfitSharing {
  const order = (fields: Record<string, string>) => ({ channelOrderId: fields.order_id ?? null });
  return {
    merchantFor(params) {
      try {
        return adapter.merchantFields(params, 'NATIVE') as unknown as Record<string, string>;
      } catch (e) {
        // Parameters without an account at the platform: the merchant has none there (yet).
        if (isKitError(e) && e.error === 'payment_params_missing') return undefined;
        throw e;
      }
    },
    accountOf: (m) => m.sub_mch_id ?? m.mch_id,
    async addReceiver(merchant, r) {
      return outcome('profitSharing', await calls().addReceiver(merchant as unknown as MerchantFields, r), () => ({}));
    },
    async removeReceiver(merchant, r) {
      return outcome('profitSharing', await calls().removeReceiver(merchant as unknown as MerchantFields, r), () => ({}));
    },
    async split(co, splitNo, shares, finish) {
      const receivers = shares.map((s) => ({ type: s.type, account: s.account, amount: s.amountCents, description: s.description }));
      return outcome('profitSharing', await calls().split(co, splitNo, receivers, finish), order);
    },
    async query(co, splitNo) {
      return outcome('profitSharing', await calls().querySplit(co, splitNo), (f): SplitFacts => {
        let reported: Array<Record<string, unknown>>;
        try {
          reported = JSON.parse(f.receivers ?? '[]');
        } catch {
          throw new KitError('channel_error', 'the channel answered the query with unreadable receivers');
        }
        return {
          ...order(f),
          finished: f.status === 'FINISHED',
          receivers: reported.map((x) => {
            const finishedAt = parseChinaTime(typeof x.finish_time === 'string' ? x.finish_time : undefined);
            return {
              type: String(x.type ?? ''),
              account: String(x.account ?? ''),
              result: RESULTS[String(x.result ?? 'PENDING')] ?? 'pending',
              ...(typeof x.fail_reason === 'string' && x.fail_reason ? { failReason: x.fail_reason } : {}),
              ...(finishedAt !== null ? { finishedAt } : {}),
            };
          }),
        };
      });
    },
    async finish(co, splitNo, description) {
      const frozen = await calls().unsplitAmount(co);
      if (!frozen.ok) throw new KitError('channel_error', `the channel did not tell the unsplit amount: ${frozen.errCode ?? ''} ${frozen.errMsg ?? ''}`.trim());
      return outcome('profitSharing', await calls().finishSharing(co, splitNo, Number(frozen.fields.unsplit_amount ?? 0), description), order);
    },
  };
}
