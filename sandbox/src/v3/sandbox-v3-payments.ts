/**
 * The sandbox's API v3 payment endpoints for a service provider (partner mode): place (native, jsapi,
 * app), query and close by `out_trade_no`, refund and refund query. Each request is read from the
 * documented JSON into the fields of protocol v2 and handled by the same rules and faults as v2
 * (sandbox-platform.ts); its answer is written back in the v3 shape (sandbox-v3-resources.ts).
 * Orders placed here keep `sign_type` WECHATPAY2-SHA256-RSA2048, so their notifications go out in v3.
 */
import { z } from 'zod';
import type { Config } from '@kit/server/plugins/dev-plugin';
import { sandboxPlatform } from '../stand-ins';
import { compactTime } from '../protocol/china-time';
import type { Fields, V2Call } from '../protocol/v2-rules';
import type { SandboxPlatform } from '../sandbox-platform';
import { ProtocolFail, V3_SIGN_TYPE } from '../sandbox-protocol';
import type { SandboxStore } from '../sandbox-store';
import { v3Failure } from './sandbox-v3-errors';
import { V3Fail } from './sandbox-v3-http';
import { refundOf, transactionOf } from './sandbox-v3-resources';
import { CodeRefused, type SandboxCodes } from '../sandbox-codes';

/** What an endpoint answers: a status and a JSON body (null: no body, 204), or null when a fault says the call is lost. */
export type V3Result = { status: number; body: object | null } | null;

const REALM = 'social';

const placeBody = z.object({
  sp_appid: z.string().min(1).max(32),
  sp_mchid: z.string().min(1).max(32),
  sub_appid: z.string().min(1).max(32).optional(),
  sub_mchid: z.string().min(1).max(32),
  description: z.string().min(1).max(127),
  out_trade_no: z.string().min(6).max(32),
  time_expire: z.string().optional(),
  attach: z.string().max(128).optional(),
  notify_url: z.string().min(1).max(256),
  amount: z.object({ total: z.number().int().positive(), currency: z.literal('CNY').default('CNY') }),
  payer: z.object({ sp_openid: z.string().min(1).optional(), sub_openid: z.string().min(1).optional() }).optional(),
  settle_info: z.object({ profit_sharing: z.boolean().optional() }).optional(),
  scene_info: z
    .object({ payer_client_ip: z.string().min(1).optional() })
    .passthrough()
    .optional(),
});

const closeBody = z.object({ sp_appid: z.string().min(1).optional(), sp_mchid: z.string().min(1), sub_mchid: z.string().min(1) });

const codePayBody = z.object({
  sp_appid: z.string().min(1).max(32),
  sp_mchid: z.string().min(1).max(32),
  sub_appid: z.string().min(1).max(32).optional(),
  sub_mchid: z.string().min(1).max(32),
  description: z.string().min(1).max(127),
  out_trade_no: z.string().min(6).max(32),
  attach: z.string().max(128).optional(),
  payer: z.object({ auth_code: z.string().min(1).max(128) }),
  amount: z.object({ total: z.number().int().positive(), currency: z.literal('CNY').default('CNY') }),
  scene_info: z
    .object({ device_id: z.string().max(32).optional() })
    .passthrough()
    .optional(),
  settle_info: z.object({ profit_sharing: z.boolean().optional() }).optional(),
});

const refundBody = z.object({
  sub_mchid: z.string().min(1).max(32),
  transaction_id: z.string().min(1).max(32).optional(),
  out_trade_no: z.string().min(1).max(32).optional(),
  out_refund_no: z.string().min(1).max(64),
  reason: z.string().max(80).optional(),
  notify_url: z.string().min(1).max(256).optional(),
  amount: z.object({ refund: z.number().int().positive(), total: z.number().int().positive(), currency: z.literal('CNY') }),
});

/** The bytes of a request read as a JSON object, or 400 PARAM_ERROR. */
export function jsonBody(text: string): unknown {
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v;
  } catch {
    // below
  }
  throw new V3Fail(400, 'PARAM_ERROR', 'the body must be a JSON object');
}

export function parseBody<T>(schema: z.ZodType<T>, text: string): T {
  const r = schema.safeParse(jsonBody(text));
  if (!r.success) {
    const i = r.error.issues[0];
    throw new V3Fail(400, 'PARAM_ERROR', `${i.path.join('.') || 'body'}: ${i.message}`);
  }
  return r.data;
}

export class SandboxV3Payments {
  constructor(
    private readonly platform: SandboxPlatform,
    private readonly store: SandboxStore,
    private readonly config: Config,
    private readonly codes: SandboxCodes,
  ) {}

  /** The shared rules with v2 failures in v3 words; `notFound` is what an unknown order is called here. */
  async perform(op: V2Call, req: Fields, notFound: 'ORDER_NOT_EXIST' | 'RESOURCE_NOT_EXISTS' = 'ORDER_NOT_EXIST'): Promise<Fields | null> {
    try {
      return await this.platform.perform(REALM, op, req, V3_SIGN_TYPE);
    } catch (e) {
      if (e instanceof ProtocolFail) throw v3Failure(e, notFound);
      throw e;
    }
  }

  private merchant(f: Fields): void {
    const problem = sandboxPlatform(this.config, REALM).merchantProblem(f);
    if (problem) throw new V3Fail(400, 'PARAM_ERROR', problem.replace('appid', 'sp_appid').replace('mch_id', 'sp_mchid').replace('sub_sp_mchid', 'sub_mchid'));
  }

  async place(tradeType: 'NATIVE' | 'JSAPI' | 'APP', mchid: string, text: string): Promise<V3Result> {
    const b = parseBody(placeBody, text);
    if (b.sp_mchid !== mchid) throw new V3Fail(400, 'PARAM_ERROR', 'sp_mchid is not the merchant that signed the request');
    let expire = '';
    if (b.time_expire !== undefined) {
      const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)$/.test(b.time_expire) ? Date.parse(b.time_expire) : NaN;
      if (!Number.isFinite(ms)) throw new V3Fail(400, 'PARAM_ERROR', 'time_expire must be RFC 3339 (yyyy-MM-DDTHH:mm:ss+08:00)');
      expire = compactTime(ms);
    }
    if (tradeType === 'JSAPI' && !b.payer?.sp_openid && !b.payer?.sub_openid)
      throw new V3Fail(400, 'PARAM_ERROR', 'payer.sp_openid or payer.sub_openid is required');
    const f: Fields = {
      appid: b.sp_appid,
      mch_id: b.sp_mchid,
      ...(b.sub_appid ? { sub_appid: b.sub_appid } : {}),
      sub_mch_id: b.sub_mchid,
      body: b.description,
      out_trade_no: b.out_trade_no,
      total_fee: String(b.amount.total),
      spbill_create_ip: b.scene_info?.payer_client_ip ?? '127.0.0.1',
      notify_url: b.notify_url,
      trade_type: tradeType,
      ...(tradeType === 'JSAPI' && b.payer?.sp_openid ? { openid: b.payer.sp_openid } : {}),
      ...(tradeType === 'JSAPI' && b.payer?.sub_openid ? { sub_openid: b.payer.sub_openid } : {}),
      ...(expire ? { time_expire: expire } : {}),
      profit_sharing: b.settle_info?.profit_sharing ? 'Y' : 'N',
    };
    this.merchant(f);
    const out = await this.perform('unifiedOrder', f);
    if (!out) return null;
    return { status: 200, body: tradeType === 'NATIVE' ? { code_url: out.code_url } : { prepay_id: out.prepay_id } };
  }

  /**
   * The payer's payment code (付款码支付, 7.4): the trade when paid (200), `USERPAYING` (202) while the
   * payer confirms, a refusal naming the platform's code; a `silent` code is never answered.
   */
  async codePay(mchid: string, text: string): Promise<V3Result> {
    const b = parseBody(codePayBody, text);
    if (b.sp_mchid !== mchid) throw new V3Fail(400, 'PARAM_ERROR', 'sp_mchid is not the merchant that signed the request');
    const f: Fields = { appid: b.sp_appid, mch_id: b.sp_mchid, ...(b.sub_appid ? { sub_appid: b.sub_appid } : {}), sub_mch_id: b.sub_mchid };
    this.merchant(f);
    let charged;
    try {
      charged = await this.codes.charge(
        REALM,
        {
          ...(f as { appid: string; mch_id: string; sub_mch_id: string }),
          out_trade_no: b.out_trade_no,
          body: b.description,
          total_fee: b.amount.total,
          device_info: b.scene_info?.device_id,
        },
        b.payer.auth_code,
        V3_SIGN_TYPE,
      );
    } catch (e) {
      if (e instanceof CodeRefused) throw new V3Fail(e.status, e.code, e.message);
      throw e;
    }
    if (!charged.answered) return null;
    const o = charged.order;
    if (o.state === 'USERPAYING') return { status: 202, body: { code: 'USERPAYING', message: '需要用户输入支付密码' } };
    if (o.state === 'SUCCESS') return { status: 200, body: transactionOf(o) };
    throw new V3Fail(403, 'TRADE_ERROR', `the order is ${o.state}`);
  }

  /** Undoes a code payment (撤销): 200, whatever its state; money taken goes back (`recall: true`: not yet, call again). */
  async reverse(mchid: string, outTradeNo: string, text: string): Promise<V3Result> {
    const b = parseBody(closeBody, text);
    if (b.sp_mchid !== mchid) throw new V3Fail(400, 'PARAM_ERROR', 'sp_mchid is not the merchant that signed the request');
    const o = await this.order(mchid, b.sub_mchid, outTradeNo);
    if (o.trade_type !== 'MICROPAY') throw new V3Fail(400, 'INVALID_REQUEST', 'only a payment code order can be reversed; close the others');
    const { recall } = await this.codes.reverse(await this.codes.ripen(o));
    return { status: 200, body: { recall } };
  }

  /** The order of this service provider and sub-merchant, or 404 ORDER_NOT_EXIST. */
  private async order(mchid: string, subMchid: string, outTradeNo: string) {
    const o = await this.store.orderByTradeNo(REALM, mchid, outTradeNo);
    if (!o || o.sub_mch_id !== subMchid) throw new V3Fail(404, 'ORDER_NOT_EXIST', 'no such order');
    return o;
  }

  async query(mchid: string, outTradeNo: string, q: Record<string, unknown>): Promise<V3Result> {
    if (q.sp_mchid !== mchid) throw new V3Fail(400, 'PARAM_ERROR', 'sp_mchid must be the merchant that signed the request');
    if (typeof q.sub_mchid !== 'string' || !q.sub_mchid) throw new V3Fail(400, 'PARAM_ERROR', 'sub_mchid is required');
    await this.codes.ripen(await this.order(mchid, q.sub_mchid, outTradeNo));
    const out = await this.perform('orderQuery', { mch_id: mchid, out_trade_no: outTradeNo });
    const o = await this.order(mchid, q.sub_mchid, outTradeNo);
    return { status: 200, body: transactionOf(o, out!.trade_state) };
  }

  /** 204; closing a closed order again is done already. */
  async close(mchid: string, outTradeNo: string, text: string): Promise<V3Result> {
    const b = parseBody(closeBody, text);
    if (b.sp_mchid !== mchid) throw new V3Fail(400, 'PARAM_ERROR', 'sp_mchid is not the merchant that signed the request');
    const o = await this.order(mchid, b.sub_mchid, outTradeNo);
    if (o.state === 'CLOSED') return { status: 204, body: null };
    await this.perform('closeOrder', { mch_id: mchid, out_trade_no: outTradeNo });
    return { status: 204, body: null };
  }

  async refund(mchid: string, text: string): Promise<V3Result> {
    const b = parseBody(refundBody, text);
    if (!b.transaction_id && !b.out_trade_no) throw new V3Fail(400, 'PARAM_ERROR', 'transaction_id or out_trade_no is required');
    const o = b.transaction_id
      ? await this.store.orderByTransaction(REALM, mchid, b.transaction_id)
      : await this.store.orderByTradeNo(REALM, mchid, b.out_trade_no!);
    if (!o || o.sub_mch_id !== b.sub_mchid) throw new V3Fail(404, 'RESOURCE_NOT_EXISTS', 'no such order');
    const out = await this.perform(
      'refund',
      {
        mch_id: mchid,
        ...(b.transaction_id ? { transaction_id: b.transaction_id } : { out_trade_no: b.out_trade_no! }),
        out_refund_no: b.out_refund_no,
        total_fee: String(b.amount.total),
        refund_fee: String(b.amount.refund),
        ...(b.notify_url ? { notify_url: b.notify_url } : {}),
      },
      'RESOURCE_NOT_EXISTS',
    );
    if (!out) return null;
    const r = await this.store.refundByNumber(REALM, mchid, b.out_refund_no);
    return { status: 200, body: refundOf(o, r!, this.store.clock.now()) };
  }

  async refundQuery(mchid: string, outRefundNo: string, q: Record<string, unknown>): Promise<V3Result> {
    if (typeof q.sub_mchid !== 'string' || !q.sub_mchid) throw new V3Fail(400, 'PARAM_ERROR', 'sub_mchid is required');
    const r = await this.store.refundByNumber(REALM, mchid, outRefundNo);
    const o = r ? await this.store.orderByPrepayId(r.prepay_id) : undefined;
    if (!r || !o || o.sub_mch_id !== q.sub_mchid) throw new V3Fail(404, 'RESOURCE_NOT_EXISTS', 'no such refund');
    return { status: 200, body: refundOf(o, r, this.store.clock.now()) };
  }
}
