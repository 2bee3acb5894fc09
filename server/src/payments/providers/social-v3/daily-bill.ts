/**
 * The social platform's daily trade bill as the kit reads it (5.2): downloaded by either protocol,
 * parsed strictly (`trade-bill.ts`), handed over as kit lines. A bill that does not parse refuses
 * the whole day (`channel_error`), so a half-read bill never reaches the books.
 */
import { KitError } from '@kit/shared';
import type { BillDownload, DailyBill } from '../provider';
import type { BillText } from '../protocol-v2/types';
import { BillFormatError, parseTradeBill, type BillLine } from './trade-bill';

/** Payment lines the platform counts as paid, and refund lines it counts as done. */
const settled = (_kind: 'payment' | 'refund', status: string) => status === 'SUCCESS';

export function dailyBillOf(channel: string, download: (date: string) => Promise<BillText>): DailyBill {
  return {
    settled,
    async download(date: string): Promise<BillDownload> {
      const got = await download(date);
      if (got.kind !== 'bill') return got;
      try {
        const bill = parseTradeBill(got.text);
        return {
          kind: 'bill',
          lines: bill.lines.map((l) => kitLine(l)),
          summary: { settledCents: bill.summary.settledCents, refundCents: bill.summary.refundCents, feeUnits: bill.summary.feeUnits },
        };
      } catch (e) {
        if (e instanceof BillFormatError) throw new KitError('channel_error', `the ${channel} bill of ${date} cannot be read: ${e.message}`);
        throw e;
      }
    },
  };
}

function kitLine(l: BillLine) {
  const status = l.kind === 'payment' ? l.tradeState : (l.refundState ?? '');
  return {
    lineNo: l.lineNo,
    kind: l.kind,
    time: l.time,
    orderNo: l.outTradeNo,
    refundNo: l.outRefundNo,
    transactionId: l.transactionId,
    refundId: l.refundId,
    subAccount: l.subMchId,
    account: l.subMchId || l.mchId,
    status,
    settled: settled(l.kind, status),
    amountCents: l.amountCents,
    feeUnits: l.feeUnits,
  };
}
