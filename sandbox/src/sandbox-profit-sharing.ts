/**
 * The sandbox platform's profit sharing (protocol v2, social channel only), with the platform's
 * behaviour: receivers are added per merchant number; a split of a paid profit-sharing order is
 * accepted at once and its receivers' results are decided a moment later (`SANDBOX_PROFIT_SHARING_DELAY`);
 * a receiver that was not added is refused, and one removed before its result is closed; all splits
 * together take at most 30 % of the order; the order's funds stay frozen until its sharing is
 * finished, which releases the rest to the merchant.
 */
import { randomBytes } from 'node:crypto';
import { MAX_CUSTOM_RELATION_CHARS, RELATION_TYPES, maxShareCents } from '@kit/shared';
import { isUniqueViolation } from '@kit/server/plugins/kit';
import { sandboxRealm } from './stand-ins';
import { compactTime } from './protocol/china-time';
import type { Fields, SignType, V2Call } from './protocol/v2-rules';
import { ProtocolFail, V3_SIGN_TYPE, type SandboxRealm } from './sandbox-protocol';
import type { SandboxOrder, SandboxPsOrder, SandboxStore } from './sandbox-store';

interface SplitReceiver {
  type: string;
  account: string;
  amount: number;
  description: string;
}

const RECEIVER_TYPES = new Set(['MERCHANT_ID', 'PERSONAL_OPENID']);

export class SandboxProfitSharing {
  constructor(
    private readonly store: SandboxStore,
    private readonly resultDelayMs: number,
  ) {}

  handle(realm: SandboxRealm, op: V2Call, req: Fields, signType: SignType): Promise<Fields> {
    if (!sandboxRealm(realm).sharesProfits) throw new ProtocolFail('NOT_SUPPORTED', `${sandboxRealm(realm).description} does not share profits`);
    // Over API v3 every call is signed with the merchant's RSA key (sandbox/v3/).
    if (signType !== 'HMAC-SHA256' && (signType as string) !== V3_SIGN_TYPE)
      throw new ProtocolFail('PARAM_ERROR', 'profit sharing calls must be signed with HMAC-SHA256');
    if (!req.sub_mch_id) throw new ProtocolFail('PARAM_ERROR', 'sub_mch_id missing');
    switch (op) {
      case 'psAddReceiver':
        return this.addReceiver(req);
      case 'psRemoveReceiver':
        return this.removeReceiver(req);
      case 'psSplit':
        return this.split(req, false);
      case 'psSplitAndFinish':
        return this.split(req, true);
      case 'psQuery':
        return this.query(req);
      case 'psFinish':
        return this.finish(req);
      case 'psAmount':
        return this.amount(req);
      default:
        throw new ProtocolFail('PARAM_ERROR', `unknown operation ${op}`);
    }
  }

  private async addReceiver(req: Fields): Promise<Fields> {
    const r = parseJson<Record<string, unknown>>(req.receiver, 'receiver');
    if (!RECEIVER_TYPES.has(String(r.type))) throw new ProtocolFail('PARAM_ERROR', 'receiver.type must be MERCHANT_ID or PERSONAL_OPENID');
    if (typeof r.account !== 'string' || !r.account) throw new ProtocolFail('PARAM_ERROR', 'receiver.account missing');
    if (!(RELATION_TYPES as readonly string[]).includes(String(r.relation_type)))
      throw new ProtocolFail('PARAM_ERROR', 'receiver.relation_type is not one of the platform’s');
    if (r.type === 'MERCHANT_ID' && (typeof r.name !== 'string' || !r.name)) throw new ProtocolFail('PARAM_ERROR', 'a MERCHANT_ID receiver needs its name');
    // The platform requires custom_relation with CUSTOM, at most 10 characters (wechatpay-go profitsharing AddReceiverRequest).
    const custom = typeof r.custom_relation === 'string' && r.custom_relation ? r.custom_relation : null;
    if (r.relation_type === 'CUSTOM' && !custom) throw new ProtocolFail('PARAM_ERROR', 'receiver.custom_relation is required when relation_type is CUSTOM');
    if (custom && [...custom].length > MAX_CUSTOM_RELATION_CHARS)
      throw new ProtocolFail('PARAM_ERROR', `receiver.custom_relation must be at most ${MAX_CUSTOM_RELATION_CHARS} characters`);
    await this.store.upsertPsReceiver({
      mch_id: req.mch_id,
      sub_mch_id: req.sub_mch_id,
      type: String(r.type),
      account: r.account,
      name: typeof r.name === 'string' ? r.name : null,
      relation_type: String(r.relation_type),
      custom_relation: r.relation_type === 'CUSTOM' ? custom : null,
      added_at: this.store.clock.now(),
      removed_at: null,
    });
    return { result_code: 'SUCCESS', receiver: req.receiver };
  }

  private async removeReceiver(req: Fields): Promise<Fields> {
    const r = parseJson<Record<string, unknown>>(req.receiver, 'receiver');
    await this.store.removePsReceiver(req.mch_id, req.sub_mch_id, String(r.type), String(r.account), this.store.clock.now());
    return { result_code: 'SUCCESS', receiver: req.receiver };
  }

  private async split(req: Fields, finish: boolean): Promise<Fields> {
    const o = await this.sharedOrder(req);
    const receivers = parseJson<SplitReceiver[]>(req.receivers, 'receivers');
    if (!Array.isArray(receivers) || receivers.length === 0 || receivers.length > 50)
      throw new ProtocolFail('PARAM_ERROR', 'receivers must list 1 to 50 receivers');
    for (const r of receivers) {
      if (
        !RECEIVER_TYPES.has(r?.type) ||
        typeof r.account !== 'string' ||
        !Number.isSafeInteger(r.amount) ||
        r.amount <= 0 ||
        typeof r.description !== 'string' ||
        !r.description
      ) {
        throw new ProtocolFail('PARAM_ERROR', 'each receiver needs type, account, a positive integer amount (cents) and a description');
      }
    }
    const again = await this.store.psOrderByNumber(req.mch_id, req.sub_mch_id, req.out_order_no);
    if (again) {
      if (again.kind !== 'split' || again.receivers_json !== JSON.stringify(receivers))
        throw new ProtocolFail('INVALID_REQUEST', 'out_order_no was used with different parameters');
      return orderAnswer(o, again);
    }
    if (o.unfrozen_at !== null) throw new ProtocolFail('ORDER_FINISHED', 'the sharing of this order has been finished');
    const active = new Set(
      (await this.store.psReceivers(req.mch_id, req.sub_mch_id)).filter((r) => r.removed_at === null).map((r) => `${r.type}:${r.account}`),
    );
    const unknown = receivers.find((r) => !active.has(`${r.type}:${r.account}`));
    if (unknown) throw new ProtocolFail('RECEIVER_INVALID', `receiver ${unknown.type} ${unknown.account} was not added for this merchant`);
    const amount = receivers.reduce((a, r) => a + r.amount, 0);
    const shared = await this.sharedSoFar(o);
    if (shared + amount > maxShareCents(o.total_fee))
      throw new ProtocolFail('AMOUNT_OVERDUE', `the order can share ${maxShareCents(o.total_fee) - shared} more at most`);
    const now = this.store.clock.now();
    const row: SandboxPsOrder = {
      order_id: `30${compactTime(now)}${randomBytes(8).toString('hex')}`,
      mch_id: req.mch_id,
      sub_mch_id: req.sub_mch_id,
      out_order_no: req.out_order_no,
      prepay_id: o.prepay_id,
      kind: 'split',
      receivers_json: JSON.stringify(receivers),
      amount,
      description: null,
      created_at: now,
      results_at: now + this.resultDelayMs,
      results_json: null,
    };
    return this.record(o, row, finish);
  }

  private async finish(req: Fields): Promise<Fields> {
    const o = await this.sharedOrder(req);
    const again = await this.store.psOrderByNumber(req.mch_id, req.sub_mch_id, req.out_order_no);
    if (again) {
      if (again.kind !== 'finish') throw new ProtocolFail('INVALID_REQUEST', 'out_order_no was used with different parameters');
      return orderAnswer(o, again);
    }
    if (o.unfrozen_at !== null) throw new ProtocolFail('ORDER_FINISHED', 'the sharing of this order has been finished');
    if (!req.description) throw new ProtocolFail('PARAM_ERROR', 'description missing');
    const unsplit = o.total_fee - (await this.sharedSoFar(o));
    if (req.amount !== String(unsplit)) throw new ProtocolFail('PARAM_ERROR', `amount must be the unsplit amount ${unsplit}`);
    const now = this.store.clock.now();
    return this.record(
      o,
      {
        order_id: `30${compactTime(now)}${randomBytes(8).toString('hex')}`,
        mch_id: req.mch_id,
        sub_mch_id: req.sub_mch_id,
        out_order_no: req.out_order_no,
        prepay_id: o.prepay_id,
        kind: 'finish',
        receivers_json: '[]',
        amount: unsplit,
        description: req.description,
        created_at: now,
        results_at: now,
        results_json: '[]',
      },
      true,
    );
  }

  private async record(o: SandboxOrder, row: SandboxPsOrder, unfreeze: boolean): Promise<Fields> {
    try {
      await this.store.db.transaction().execute(async (trx) => {
        await this.store.insertPsOrder(trx, row);
        if (unfreeze) await this.store.unfreeze(trx, o.prepay_id, row.created_at);
      });
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      const raced = await this.store.psOrderByNumber(row.mch_id, row.sub_mch_id, row.out_order_no);
      if (!raced || raced.receivers_json !== row.receivers_json || raced.kind !== row.kind)
        throw new ProtocolFail('INVALID_REQUEST', 'out_order_no was used with different parameters');
      return orderAnswer(o, raced);
    }
    return orderAnswer(o, row);
  }

  private async query(req: Fields): Promise<Fields> {
    const p = await this.store.psOrderByNumber(req.mch_id, req.sub_mch_id, req.out_order_no ?? '');
    if (!p) throw new ProtocolFail('ORDER_NOT_EXIST', 'no such profit-sharing order');
    const o = await this.store.orderByPrepayId(p.prepay_id);
    if (!o || (req.transaction_id && req.transaction_id !== o.transaction_id)) throw new ProtocolFail('ORDER_NOT_EXIST', 'no such profit-sharing order');
    const results = await this.results(p);
    return {
      ...orderAnswer(o, p),
      status: results.some((r) => r.result === 'PENDING') ? 'PROCESSING' : 'FINISHED',
      receivers: JSON.stringify(results),
    };
  }

  private async amount(req: Fields): Promise<Fields> {
    const o = await this.sharedOrder(req, { paidOnly: false });
    const unsplit = o.unfrozen_at !== null || o.state !== 'SUCCESS' ? 0 : o.total_fee - (await this.sharedSoFar(o));
    return { result_code: 'SUCCESS', transaction_id: o.transaction_id ?? '', unsplit_amount: String(unsplit) };
  }

  /**
   * Each receiver's result: pending until the results are decided; then success, or closed when
   * the receiver was removed before. Decided once and kept.
   */
  private async results(p: SandboxPsOrder): Promise<Array<Record<string, string | number>>> {
    if (p.results_json) return JSON.parse(p.results_json);
    const shares = JSON.parse(p.receivers_json) as SplitReceiver[];
    const base = (r: SplitReceiver) => ({ type: r.type, account: r.account, amount: r.amount, description: r.description });
    if (this.store.clock.now() < p.results_at) return shares.map((r) => ({ ...base(r), result: 'PENDING' }));
    const active = new Set((await this.store.psReceivers(p.mch_id, p.sub_mch_id)).filter((r) => r.removed_at === null).map((r) => `${r.type}:${r.account}`));
    const decided = shares.map((r) =>
      active.has(`${r.type}:${r.account}`)
        ? { ...base(r), result: 'SUCCESS', finish_time: compactTime(p.results_at) }
        : { ...base(r), result: 'CLOSED', fail_reason: 'NO_RELATION', finish_time: compactTime(p.results_at) },
    );
    await this.store.settlePsResults(p.order_id, JSON.stringify(decided));
    return decided;
  }

  /** What splits of the order hold: every split's amount, but for receivers whose share was closed. */
  private async sharedSoFar(o: SandboxOrder): Promise<number> {
    let total = 0;
    for (const p of await this.store.psOrdersOf(o.prepay_id)) {
      if (p.kind !== 'split') continue;
      for (const r of await this.results(p)) if (r.result !== 'CLOSED') total += Number(r.amount);
    }
    return total;
  }

  /** The paid profit-sharing order named by `transaction_id`. */
  private async sharedOrder(req: Fields, opts = { paidOnly: true }): Promise<SandboxOrder> {
    const o = req.transaction_id ? await this.store.orderByTransaction('social', req.mch_id, req.transaction_id) : undefined;
    if (!o || o.sub_mch_id !== req.sub_mch_id) throw new ProtocolFail('ORDER_NOT_EXIST', 'no such order');
    if (!o.profit_sharing) throw new ProtocolFail('NOT_SHARING_ORDER', 'the order was not placed with profit sharing');
    if (opts.paidOnly && o.state !== 'SUCCESS')
      throw new ProtocolFail('ORDER_NOT_READY', o.state === 'REFUND' ? 'the order was refunded' : 'the order has not been paid');
    return o;
  }
}

function orderAnswer(o: SandboxOrder, p: SandboxPsOrder): Fields {
  return { result_code: 'SUCCESS', transaction_id: o.transaction_id ?? '', out_order_no: p.out_order_no, order_id: p.order_id };
}

function parseJson<T>(text: string | undefined, field: string): T {
  try {
    return JSON.parse(text ?? '') as T;
  } catch {
    throw new ProtocolFail('PARAM_ERROR', `${field} must be JSON`);
  }
}
