/** Both directions of matching, for refunds as well as payments (the HTTP tests cover payments end to end). */
import { match, type KitDay, type KitPayment, type KitRefund } from './matcher';
import type { BillLine } from '../payments/providers/provider';

const line = (over: Partial<BillLine>): BillLine => ({
  lineNo: 2,
  kind: 'payment',
  time: '2026-11-23 10:00:00',
  subAccount: '1900000109',
  account: '1900000109',
  transactionId: '4200',
  orderNo: 'T1',
  status: 'SUCCESS',
  settled: true,
  refundId: null,
  refundNo: null,
  amountCents: 500,
  feeUnits: 0,
  ...over,
});
const refundLine = (over: Partial<BillLine>) => line({ kind: 'refund', refundId: '5000', refundNo: 'R1', ...over });
const payment = (over: Partial<KitPayment>): KitPayment => ({
  out_trade_no: 'T1',
  prepay_id: 'P1',
  state: 'paid',
  total_cents: 500,
  status: 'finish',
  sub_merchant_id: 'SM1',
  ...over,
});
const refund = (over: Partial<KitRefund>): KitRefund => ({
  out_trade_no: 'T1',
  out_refund_no: 'R1',
  prepay_id: 'P1',
  state: 'success',
  refund_cents: 500,
  sub_merchant_id: 'SM1',
  ...over,
});
const day = (p: KitPayment[], r: KitRefund[], paid = p.filter((x) => x.state === 'paid'), refunded = r.filter((x) => x.state === 'success')): KitDay => ({
  orders: new Map(p.map((x) => [x.out_trade_no, x])),
  refunds: new Map(r.map((x) => [x.out_refund_no, x])),
  paid,
  refunded,
});

describe('matching a bill with the kit', () => {
  it('finds nothing when both agree, payments and refunds', () => {
    expect(match([line({}), refundLine({})], day([payment({ status: 'refunded' })], [refund({})]))).toEqual([]);
  });

  it('types each refund difference with both views', () => {
    expect(match([refundLine({})], day([payment({})], [refund({ state: 'accepted' })], [], []))).toEqual([
      expect.objectContaining({
        kind: 'status_mismatch',
        of: 'refund',
        outRefundNo: 'R1',
        kit: { status: 'accepted', amount: '5.00' },
        channel: { status: 'SUCCESS', amount: '5.00' },
      }),
    ]);
    expect(match([refundLine({ amountCents: 400 })], day([], [refund({})]))).toEqual([
      expect.objectContaining({
        kind: 'amount_mismatch',
        of: 'refund',
        kit: { status: 'success', amount: '5.00' },
        channel: { status: 'SUCCESS', amount: '4.00' },
      }),
    ]);
    expect(match([refundLine({ refundNo: 'R9' })], day([], [], [], []))).toEqual([
      expect.objectContaining({ kind: 'channel_only', of: 'refund', outRefundNo: 'R9', kit: null, channelMchId: '1900000109' }),
    ]);
    expect(match([], day([], [refund({})]))).toEqual([expect.objectContaining({ kind: 'kit_only', of: 'refund', outRefundNo: 'R1', channel: null })]);
  });

  it('leaves lines the channel does not count as done to the queries', () => {
    expect(
      match(
        [refundLine({ status: 'PROCESSING', settled: false }), line({ status: 'REVOKED', settled: false })],
        day([payment({ state: 'open', status: 'active' })], [refund({ state: 'accepted' })], [], []),
      ),
    ).toEqual([]);
  });

  it("a payment code the kit cancelled after the payer paid (7.4): its payment and the cancel's refund are nothing to do; its payment alone is", () => {
    const cancelled = payment({ state: 'cancelled', status: 'active' });
    expect(match([line({}), refundLine({ refundNo: 'cancel_T1' })], day([cancelled], []))).toEqual([]);
    // Paid at the platform with no refund in the bill: a person looks.
    expect(match([line({})], day([cancelled], []))).toEqual([expect.objectContaining({ kind: 'status_mismatch', of: 'payment', outTradeNo: 'T1' })]);
    // A refund of part of it is no cancel.
    expect(match([line({}), refundLine({ refundNo: 'cancel_T1', amountCents: 100 })], day([cancelled], []))).toHaveLength(2);
  });
});
