/** Profit sharing (4.8) over protocol v2: the platform takes these calls signed with HMAC-SHA256 only. */
import type { PayChannelOrdersTable } from '../../../db/schema';
import { callProtocol, type ProtocolAnswer, type ProtocolOp } from '../protocol-v2/client';
import type { Fields } from '../protocol-v2/xml';
import { merchantOf } from '../protocol-v2/merchant';
import type { ChannelAdapter, ProfitSharingCalls } from '../protocol-v2/types';

export function profitSharingV2(adapter: ChannelAdapter): ProfitSharingCalls {
  const call = (op: ProtocolOp, request: Fields): Promise<ProtocolAnswer> => callProtocol(adapter.endpoint(), op, request, 'HMAC-SHA256');
  const ids = (co: PayChannelOrdersTable) => adapter.requestIds(merchantOf(co));
  return {
    addReceiver(merchant, receiver) {
      // `custom_relation` goes with relation type CUSTOM, which the platform refuses without it.
      const json = {
        type: receiver.type,
        account: receiver.account,
        ...(receiver.name ? { name: receiver.name } : {}),
        relation_type: receiver.relationType,
        ...(receiver.customRelation ? { custom_relation: receiver.customRelation } : {}),
      };
      return call('psAddReceiver', { ...adapter.requestIds(merchant), receiver: JSON.stringify(json) });
    },
    removeReceiver(merchant, receiver) {
      return call('psRemoveReceiver', { ...adapter.requestIds(merchant), receiver: JSON.stringify({ type: receiver.type, account: receiver.account }) });
    },
    split(co, outOrderNo, receivers, finish) {
      return call(finish ? 'psSplitAndFinish' : 'psSplit', {
        ...ids(co),
        transaction_id: co.transaction_id ?? '',
        out_order_no: outOrderNo,
        receivers: JSON.stringify(receivers),
      });
    },
    querySplit(co, outOrderNo) {
      return call('psQuery', { ...ids(co), transaction_id: co.transaction_id ?? '', out_order_no: outOrderNo });
    },
    finishSharing(co, outOrderNo, amount, description) {
      return call('psFinish', { ...ids(co), transaction_id: co.transaction_id ?? '', out_order_no: outOrderNo, amount: String(amount), description });
    },
    unsplitAmount(co) {
      return call('psAmount', { ...ids(co), transaction_id: co.transaction_id ?? '' });
    },
  };
}
