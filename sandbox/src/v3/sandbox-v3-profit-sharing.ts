/**
 * The sandbox's API v3 profit sharing (`/v3/profitsharing/…`, partner mode): receivers added (the
 * name RSA-OAEP encrypted to the platform key named by `Wechatpay-Serial`, decrypted here) and
 * deleted, splits (`unfreeze_unsplit` finishes too), their query, unfreezing the rest, and the
 * unsplit amount. The rules and faults are the v2 ones (sandbox-profit-sharing.ts); answers in the
 * v3 shape, with results, times in RFC 3339.
 */
import { z } from 'zod';
import { parseCompactTime, rfc3339China } from '../protocol/china-time';
import { oaepOpen, serialOf } from '../protocol/v3-rules';
import type { SandboxStore } from '../sandbox-store';
import { V3Fail } from './sandbox-v3-http';
import { platformKeyIds, type SandboxV3Keys } from './sandbox-v3-keys';
import { parseBody, type SandboxV3Payments, type V3Result } from './sandbox-v3-payments';

const REALM = 'social';

const addBody = z.object({
  sub_mchid: z.string().min(1).max(32),
  appid: z.string().min(1).max(32),
  sub_appid: z.string().optional(),
  type: z.string().min(1),
  account: z.string().min(1).max(64),
  name: z.string().min(1).max(1024).optional(),
  relation_type: z.string().min(1),
  custom_relation: z.string().optional(),
});

const deleteBody = z.object({ sub_mchid: z.string().min(1).max(32), appid: z.string().min(1).max(32), type: z.string().min(1), account: z.string().min(1) });

const splitBody = z.object({
  sub_mchid: z.string().min(1).max(32),
  appid: z.string().min(1).max(32),
  transaction_id: z.string().min(1).max(32),
  out_order_no: z.string().min(1).max(64),
  receivers: z
    .array(
      z.object({
        type: z.string().min(1),
        account: z.string().min(1).max(64),
        name: z.string().optional(),
        amount: z.number().int().positive(),
        description: z.string().min(1).max(80),
      }),
    )
    .min(1)
    .max(50),
  unfreeze_unsplit: z.boolean(),
});

const unfreezeBody = z.object({
  sub_mchid: z.string().min(1).max(32),
  transaction_id: z.string().min(1).max(32),
  out_order_no: z.string().min(1).max(64),
  description: z.string().min(1).max(80),
});

/** v2 `yyyyMMddHHmmss` (China time) to RFC 3339. */
const rfc = (v2: unknown): string | undefined => {
  const ms = typeof v2 === 'string' ? parseCompactTime(v2) : null;
  return ms === null ? undefined : rfc3339China(ms);
};

export class SandboxV3ProfitSharing {
  constructor(
    private readonly payments: SandboxV3Payments,
    private readonly store: SandboxStore,
    private readonly keys: SandboxV3Keys,
  ) {}

  async addReceiver(mchid: string, text: string, platformSerial: string | undefined): Promise<V3Result> {
    const b = parseBody(addBody, text);
    let name: string | undefined;
    if (b.name) {
      if (!platformSerial || !platformKeyIds(this.keys).includes(serialOf(platformSerial)))
        throw new V3Fail(400, 'PARAM_ERROR', 'Wechatpay-Serial must name the platform key the name is encrypted to');
      try {
        name = oaepOpen(b.name, this.keys.privateKey);
      } catch {
        throw new V3Fail(400, 'PARAM_ERROR', 'name does not decrypt with the platform key (RSA-OAEP)');
      }
    }
    const receiver = JSON.stringify({
      type: b.type,
      account: b.account,
      ...(name ? { name } : {}),
      relation_type: b.relation_type,
      ...(b.custom_relation ? { custom_relation: b.custom_relation } : {}),
    });
    await this.payments.perform('psAddReceiver', { mch_id: mchid, sub_mch_id: b.sub_mchid, appid: b.appid, receiver }, 'RESOURCE_NOT_EXISTS');
    return {
      status: 200,
      body: {
        sub_mchid: b.sub_mchid,
        type: b.type,
        account: b.account,
        relation_type: b.relation_type,
        ...(b.custom_relation ? { custom_relation: b.custom_relation } : {}),
      },
    };
  }

  async removeReceiver(mchid: string, text: string): Promise<V3Result> {
    const b = parseBody(deleteBody, text);
    const receiver = JSON.stringify({ type: b.type, account: b.account });
    await this.payments.perform('psRemoveReceiver', { mch_id: mchid, sub_mch_id: b.sub_mchid, appid: b.appid, receiver }, 'RESOURCE_NOT_EXISTS');
    return { status: 200, body: { sub_mchid: b.sub_mchid, type: b.type, account: b.account } };
  }

  async split(mchid: string, text: string): Promise<V3Result> {
    const b = parseBody(splitBody, text);
    const receivers = JSON.stringify(b.receivers.map((r) => ({ type: r.type, account: r.account, amount: r.amount, description: r.description })));
    const out = await this.payments.perform(
      b.unfreeze_unsplit ? 'psSplitAndFinish' : 'psSplit',
      { mch_id: mchid, sub_mch_id: b.sub_mchid, appid: b.appid, transaction_id: b.transaction_id, out_order_no: b.out_order_no, receivers },
      'RESOURCE_NOT_EXISTS',
    );
    if (!out) return null;
    return this.order(mchid, b.sub_mchid, b.transaction_id, b.out_order_no);
  }

  query(mchid: string, outOrderNo: string, q: Record<string, unknown>): Promise<V3Result> {
    if (typeof q.sub_mchid !== 'string' || !q.sub_mchid) throw new V3Fail(400, 'PARAM_ERROR', 'sub_mchid is required');
    if (typeof q.transaction_id !== 'string' || !q.transaction_id) throw new V3Fail(400, 'PARAM_ERROR', 'transaction_id is required');
    return this.order(mchid, q.sub_mchid, q.transaction_id, outOrderNo);
  }

  /** Releases what is left frozen: the v2 finish of the unsplit amount. */
  async unfreeze(mchid: string, text: string): Promise<V3Result> {
    const b = parseBody(unfreezeBody, text);
    const base = { mch_id: mchid, sub_mch_id: b.sub_mchid, transaction_id: b.transaction_id };
    const left = await this.payments.perform('psAmount', base, 'RESOURCE_NOT_EXISTS');
    const out = await this.payments.perform(
      'psFinish',
      { ...base, out_order_no: b.out_order_no, amount: left!.unsplit_amount, description: b.description },
      'RESOURCE_NOT_EXISTS',
    );
    if (!out) return null;
    return this.order(mchid, b.sub_mchid, b.transaction_id, b.out_order_no);
  }

  async amounts(mchid: string, transactionId: string): Promise<V3Result> {
    const o = await this.store.orderByTransaction(REALM, mchid, transactionId);
    if (!o) throw new V3Fail(404, 'RESOURCE_NOT_EXISTS', 'no such order');
    const out = await this.payments.perform(
      'psAmount',
      { mch_id: mchid, sub_mch_id: o.sub_mch_id ?? '', transaction_id: transactionId },
      'RESOURCE_NOT_EXISTS',
    );
    return { status: 200, body: { transaction_id: transactionId, unsplit_amount: Number(out!.unsplit_amount) } };
  }

  /** A split or unfreeze order as the platform answers and queries it. */
  private async order(mchid: string, subMchid: string, transactionId: string, outOrderNo: string): Promise<V3Result> {
    const q = await this.payments.perform(
      'psQuery',
      { mch_id: mchid, sub_mch_id: subMchid, transaction_id: transactionId, out_order_no: outOrderNo },
      'RESOURCE_NOT_EXISTS',
    );
    const p = await this.store.psOrderByNumber(mchid, subMchid, outOrderNo);
    const results = JSON.parse(q!.receivers) as Array<Record<string, string | number>>;
    return {
      status: 200,
      body: {
        sub_mchid: subMchid,
        transaction_id: transactionId,
        out_order_no: outOrderNo,
        order_id: q!.order_id,
        state: q!.status,
        receivers: results.map((r, i) => ({
          amount: Number(r.amount),
          description: r.description,
          type: r.type,
          account: r.account,
          result: r.result,
          ...(r.fail_reason ? { fail_reason: r.fail_reason } : {}),
          detail_id: `36${q!.order_id.slice(2)}${String(i).padStart(2, '0')}`,
          ...(p ? { create_time: rfc3339China(p.created_at) } : {}),
          ...(rfc(r.finish_time) ? { finish_time: rfc(r.finish_time) } : {}),
        })),
      },
    };
  }
}
