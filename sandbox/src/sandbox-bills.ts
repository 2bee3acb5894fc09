/**
 * The sandbox platform's trade bills (docs/sandbox.md): made on request from what it recorded, in the
 * platform's format (`protocol/trade-bill.ts`, written apart from the kit's reader), for the service provider's whole account. A day
 * that has begun has a bill of what happened so far (the platform waits for 10:00 the next day; the
 * sandbox does not, so that anyone can watch reconciliation at once); a day with no trade has none.
 * The bill faults add, change or leave out lines, or spoil the file.
 */
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import type { Config } from '@kit/server/plugins/dev-plugin';
import { type Fields, isSignType, readFlatXml, v2Verifies, writeFlatXml } from './protocol/v2-rules';
import { dayRange, isDay } from './protocol/china-time';
import { formatTradeBill, type BillLineInput } from './protocol/trade-bill';
import type { SandboxFaults } from './sandbox-faults';
import type { SandboxStore } from './sandbox-store';

export interface BillAnswer {
  contentType: string;
  body: Buffer;
}

const DAY_MS = 86_400_000;

/** The sandbox charges 0.60 %: in 1/100000 yuan, six units per cent. */
const FEE_UNITS_PER_CENT = 6;

export class SandboxBills {
  constructor(
    private readonly store: SandboxStore,
    private readonly faults: SandboxFaults,
    private readonly config: Config,
  ) {}

  /** The bill of `date` (`YYYY-MM-DD`) as lines, or null when the day has no trade. */
  async lines(realm: string, mchId: string, date: string, now = this.store.clock.now()): Promise<BillLineInput[] | null> {
    const { from, to } = dayRange(date);
    const f = this.faults.current;
    const out: BillLineInput[] = [];
    for (const o of await this.store.paidBetween(realm, mchId, from - DAY_MS, to)) {
      if (f.billOmitted.includes(o.out_trade_no)) continue;
      // A payment booked on the next day is in the next day's bill instead.
      if (o.paid_at! >= from === f.billNextDay.includes(o.out_trade_no)) continue;
      const amountCents = o.total_fee + (f.billAmountChanged.includes(o.out_trade_no) ? 1 : 0);
      out.push({
        kind: 'payment',
        time: chinaDateTime(Math.max(o.paid_at!, from)),
        appId: o.appid,
        mchId,
        subMchId: o.sub_mch_id ?? '',
        transactionId: o.transaction_id ?? '',
        outTradeNo: o.out_trade_no,
        tradeType: o.trade_type,
        // A payment code paid and then reversed (7.4) is in the bill as the platform writes it: REVOKED.
        tradeState: o.state === 'REVOKED' ? 'REVOKED' : 'SUCCESS',
        refundId: null,
        outRefundNo: null,
        refundState: null,
        amountCents,
        // A reversed code settles nothing, and no fee is charged for it.
        ...(o.state === 'REVOKED' ? { settledCents: 0, feeUnits: 0 } : { feeUnits: amountCents * FEE_UNITS_PER_CENT }),
        body: o.body,
      });
    }
    for (const r of await this.store.refundedBetween(realm, mchId, from, Math.min(to, now + 1))) {
      if (f.billOmitted.includes(r.out_refund_no)) continue;
      out.push({
        kind: 'refund',
        time: chinaDateTime(r.success_at!),
        appId: r.appid,
        mchId,
        subMchId: r.sub_mch_id ?? '',
        transactionId: r.transaction_id ?? '',
        outTradeNo: r.out_trade_no,
        tradeType: r.trade_type,
        tradeState: 'REFUND',
        refundId: r.refund_id,
        outRefundNo: r.out_refund_no,
        refundState: 'SUCCESS',
        amountCents: r.refund_fee,
        feeUnits: 0,
        body: r.body,
      });
    }
    // Invented payments only on days that have begun, for the sub-merchant of the day's first payment.
    const subMchId = out.find((l) => l.subMchId)?.subMchId ?? '';
    for (let i = 1; from <= now && i <= f.billExtraPayments; i++) {
      // The same invented payments for the same day, so a second download is the same bill.
      const n = createHash('sha256').update(`${mchId}/${date}/${i}`).digest('hex');
      out.push({
        kind: 'payment',
        time: `${date} 12:00:00`,
        appId: this.config.PAY_SP_APPID ?? '',
        mchId,
        subMchId,
        transactionId: `42${BigInt(`0x${n.slice(0, 15)}`)
          .toString()
          .padStart(26, '0')}`,
        outTradeNo: `SBXONLY${date.replaceAll('-', '')}${n.slice(0, 8)}`,
        tradeType: 'NATIVE',
        tradeState: 'SUCCESS',
        refundId: null,
        outRefundNo: null,
        refundState: null,
        amountCents: 100 + i,
        feeUnits: (100 + i) * FEE_UNITS_PER_CENT,
        body: 'paid elsewhere (sandbox fault)',
      });
    }
    return out.length ? out : null;
  }

  /** The whole bill file of a day, with its SHA1 (over the uncompressed file), or null when there is none. */
  async file(realm: string, mchId: string, date: string): Promise<{ text: string; sha1: string } | null> {
    const lines = await this.lines(realm, mchId, date);
    if (!lines) return null;
    let text = formatTradeBill(lines);
    const sha1 = createHash('sha1').update(text).digest('hex');
    if (this.faults.current.bills === 'truncated') text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
    return { text, sha1 };
  }

  /** Protocol v2 `downloadbill`: the bill (GZIP when asked), or XML saying why there is none. */
  async downloadV2(realm: string, key: string, raw: Buffer): Promise<BillAnswer> {
    const fail = (msg: string, errorCode?: string): BillAnswer => ({
      contentType: 'application/xml',
      body: Buffer.from(writeFlatXml({ return_code: 'FAIL', return_msg: msg, ...(errorCode ? { error_code: errorCode } : {}) })),
    });
    let req: Fields;
    try {
      req = readFlatXml(raw);
    } catch {
      return fail('invalid XML');
    }
    const signType = req.sign_type ?? 'MD5';
    if (!isSignType(signType)) return fail('sign_type must be MD5 or HMAC-SHA256');
    if (!key || !v2Verifies(req, key, signType)) return fail('signature error');
    // The bill is the service provider's, for its whole account.
    if (req.appid !== this.config.PAY_SP_APPID || req.mch_id !== this.config.PAY_SP_MCH_ID) return fail('appid or mch_id is not this service provider');
    if (!req.nonce_str) return fail('nonce_str missing');
    if (req.bill_type && req.bill_type !== 'ALL') return fail('the sandbox keeps bill_type ALL only');
    const m = /^(\d{4})(\d{2})(\d{2})$/.exec(req.bill_date ?? '');
    const date = m ? `${m[1]}-${m[2]}-${m[3]}` : '';
    if (!isDay(date)) return fail('bill_date must be yyyyMMdd');
    if (this.faults.current.bills === 'creating') return fail('Bill Creating', '20003');
    const file = await this.file(realm, req.mch_id, date);
    if (!file) return fail('No Bill Exist', '20002');
    if (req.tar_type === 'GZIP') return { contentType: 'application/octet-stream', body: gzipSync(file.text) };
    return { contentType: 'text/plain; charset=utf-8', body: Buffer.from(file.text) };
  }
}

function chinaDateTime(ms: number): string {
  return new Date(ms + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}
