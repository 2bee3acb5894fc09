/**
 * Profit sharing (4.8) over API v3 (`/v3/profitsharing/…`) as requests and readers, in the
 * vocabulary ps-channel already speaks (`order_id`, `status`, `receivers` as JSON with v2 times,
 * `unsplit_amount`, error `ORDER_NOT_EXIST` for an unknown split). A receiver's name is sent
 * RSA-OAEP encrypted to the platform key, whose id goes in `Wechatpay-Serial`.
 */
import { z } from 'zod';
import type { ProtocolAnswer } from '../protocol-v2/client';
import { formatChinaTime } from '../china-time';
import type { MerchantFields } from '../protocol-v2/types';
import type { V3Answer, V3Request } from './client';
import { failure, V3AnswerError } from './partner-api';

const enc = encodeURIComponent;

/** A name already encrypted to the platform key `serial`. */
export interface EncryptedName {
  ciphertext: string;
  serial: string;
}

/** `custom_relation` goes with relation type CUSTOM, which the platform refuses without it (wechatpay-go profitsharing AddReceiverRequest). */
export function addReceiverRequest(
  m: MerchantFields,
  r: { type: string; account: string; relationType: string; customRelation?: string | null; name?: EncryptedName },
): V3Request {
  return {
    method: 'POST',
    path: '/v3/profitsharing/receivers/add',
    body: {
      sub_mchid: m.sub_mch_id,
      appid: m.appid,
      type: r.type,
      account: r.account,
      ...(r.name ? { name: r.name.ciphertext } : {}),
      relation_type: r.relationType,
      ...(r.customRelation ? { custom_relation: r.customRelation } : {}),
    },
    repeatable: true,
    platformSerial: r.name?.serial,
  };
}

export const removeReceiverRequest = (m: MerchantFields, r: { type: string; account: string }): V3Request => ({
  method: 'POST',
  path: '/v3/profitsharing/receivers/delete',
  body: { sub_mchid: m.sub_mch_id, appid: m.appid, type: r.type, account: r.account },
  repeatable: true,
});

export function splitRequest(
  m: MerchantFields,
  s: {
    transaction_id: string;
    out_order_no: string;
    receivers: Array<{ type: string; account: string; amount: number; description: string }>;
    finish: boolean;
  },
): V3Request {
  return {
    method: 'POST',
    path: '/v3/profitsharing/orders',
    body: {
      sub_mchid: m.sub_mch_id,
      appid: m.appid,
      transaction_id: s.transaction_id,
      out_order_no: s.out_order_no,
      receivers: s.receivers.map((r) => ({ type: r.type, account: r.account, amount: r.amount, description: r.description })),
      unfreeze_unsplit: s.finish,
    },
    // The same out_order_no is the same split at the platform.
    repeatable: true,
  };
}

export const querySplitRequest = (m: MerchantFields, transactionId: string, outOrderNo: string): V3Request => ({
  method: 'GET',
  path: `/v3/profitsharing/orders/${enc(outOrderNo)}?sub_mchid=${enc(m.sub_mch_id ?? '')}&transaction_id=${enc(transactionId)}`,
  repeatable: true,
});

export const finishRequest = (m: MerchantFields, s: { transaction_id: string; out_order_no: string; description: string }): V3Request => ({
  method: 'POST',
  path: '/v3/profitsharing/orders/unfreeze',
  body: { sub_mchid: m.sub_mch_id, transaction_id: s.transaction_id, out_order_no: s.out_order_no, description: s.description },
  repeatable: true,
});

export const amountsRequest = (transactionId: string): V3Request => ({
  method: 'GET',
  path: `/v3/profitsharing/transactions/${enc(transactionId)}/amounts`,
  repeatable: true,
});

const splitOrder = z
  .object({
    order_id: z.string().optional(),
    out_order_no: z.string(),
    state: z.string(),
    receivers: z
      .array(
        z
          .object({
            type: z.string(),
            account: z.string(),
            amount: z.number().int().nonnegative(),
            description: z.string().optional(),
            result: z.string(),
            fail_reason: z.string().optional(),
            finish_time: z.string().optional(),
          })
          .passthrough(),
      )
      .default([]),
  })
  .passthrough();

/** A split as the split and split-query answers tell it. */
export function readSplit(a: V3Answer): ProtocolAnswer {
  if (a.status !== 200) return failure(a, 'ORDER_NOT_EXIST');
  const r = splitOrder.safeParse(a.body);
  if (!r.success) throw new V3AnswerError("the platform's profit-sharing order is not the documented JSON");
  const receivers = r.data.receivers.map((x) => {
    const finished = x.finish_time ? Date.parse(x.finish_time) : NaN;
    return {
      type: x.type,
      account: x.account,
      amount: x.amount,
      description: x.description ?? '',
      result: x.result,
      ...(x.fail_reason ? { fail_reason: x.fail_reason } : {}),
      ...(Number.isFinite(finished) ? { finish_time: formatChinaTime(finished) } : {}),
    };
  });
  return {
    fields: {
      return_code: 'SUCCESS',
      result_code: 'SUCCESS',
      out_order_no: r.data.out_order_no,
      ...(r.data.order_id ? { order_id: r.data.order_id } : {}),
      status: r.data.state,
      receivers: JSON.stringify(receivers),
    },
    ok: true,
  };
}

export function readAmounts(a: V3Answer): ProtocolAnswer {
  if (a.status !== 200) return failure(a, 'ORDERNOTEXIST');
  const r = z.object({ transaction_id: z.string(), unsplit_amount: z.number().int().nonnegative() }).passthrough().safeParse(a.body);
  if (!r.success) throw new V3AnswerError("the platform's unsplit amount is not the documented JSON");
  return {
    fields: { return_code: 'SUCCESS', result_code: 'SUCCESS', transaction_id: r.data.transaction_id, unsplit_amount: String(r.data.unsplit_amount) },
    ok: true,
  };
}

/** Receivers add/delete: any 200 is done. */
export function readDone(a: V3Answer): ProtocolAnswer {
  return a.status === 200 || a.status === 204 ? { fields: { return_code: 'SUCCESS', result_code: 'SUCCESS' }, ok: true } : failure(a, 'RESOURCE_NOT_EXISTS');
}
