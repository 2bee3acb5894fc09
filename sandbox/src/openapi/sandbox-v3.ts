/**
 * The sandbox's API v3 platform (docs/sandbox.md): the partner endpoints the kit calls on protocol
 * v3, under `/sandbox/v3`. Every request is signed (`Authorization: WECHATPAY2-SHA256-RSA2048 …`)
 * and every answer signed (`Wechatpay-*` headers) but the bill file's; refusals are 4xx/5xx `{code, message}`.
 */
import { z } from 'zod';
import type { RouteDoc } from '@kit/server/plugins/dev-plugin';
import { text } from '@kit/server/plugins/kit';

const v3 = (doc: Omit<RouteDoc, 'tag' | 'auth' | 'sandboxOnly'>): RouteDoc => ({
  tag: 'Sandbox (development only)',
  auth: 'none',
  sandboxOnly: true,
  ...doc,
  summary: `Social payment platform, API v3: ${doc.summary}`,
  description: `${doc.description ? `${doc.description} ` : ''}Signed with the merchant API key (401 SIGN_ERROR otherwise); the answer is signed by the platform key. Refusals: HTTP 4xx/5xx with \`{code, message}\`.`,
});
const obj = (description: string) => z.object({}).passthrough().openapi({ description });
const order = obj('The transaction: sp_appid, sp_mchid, sub_mchid, out_trade_no, transaction_id, trade_type, trade_state, success_time, payer, amount');
const refund = obj('The refund: refund_id, out_refund_no, transaction_id, out_trade_no, status (PROCESSING until done, then SUCCESS), amount');
const split = obj('The profit-sharing order: sub_mchid, transaction_id, out_order_no, order_id, state, receivers with their result');
const none = text('application/json', 'No body (204)');

export const sandboxV3Routes: RouteDoc[] = [
  ...(['native', 'jsapi', 'app'] as const).map((t) =>
    v3({
      method: 'post',
      path: `/sandbox/v3/pay/partner/transactions/${t}`,
      summary: `place a ${t} order (partner mode)`,
      body: obj('sp_appid, sp_mchid, sub_mchid, description, out_trade_no, notify_url, amount {total, currency}, payer, time_expire, settle_info'),
      answer: t === 'native' ? z.object({ code_url: z.string() }) : z.object({ prepay_id: z.string() }),
    }),
  ),
  v3({
    method: 'post',
    path: '/sandbox/v3/pay/partner/transactions/codepay',
    summary: "charge the payer's payment code (partner mode, 7.4)",
    description:
      "200 with the transaction when paid; 202 `{code: USERPAYING}` while the payer confirms; 403 NOTENOUGH, AUTHCODEEXPIRE (a code used before), 400 AUTH_CODE_INVALID; a sandbox code's third digit says which (docs/sandbox.md); a `silent` code is never answered.",
    body: obj('sp_appid, sp_mchid, sub_mchid, description, out_trade_no, payer {auth_code}, amount {total, currency}, scene_info {device_id}'),
    answer: order,
  }),
  v3({
    method: 'post',
    path: '/sandbox/v3/pay/partner/transactions/out-trade-no/:no/reverse',
    summary: 'undo a payment code order whatever its state (REVOKED; money taken goes back)',
    body: z.object({ sp_appid: z.string().optional(), sp_mchid: z.string(), sub_mchid: z.string() }),
    answer: z.object({ recall: z.boolean() }),
  }),
  v3({
    method: 'get',
    path: '/sandbox/v3/pay/partner/transactions/out-trade-no/:no',
    summary: 'query an order by out_trade_no',
    query: z.object({ sp_mchid: z.string(), sub_mchid: z.string() }),
    answer: order,
  }),
  v3({
    method: 'post',
    path: '/sandbox/v3/pay/partner/transactions/out-trade-no/:no/close',
    summary: 'close an unpaid order (204; again 204)',
    body: z.object({ sp_mchid: z.string(), sub_mchid: z.string() }),
    answer: none,
  }),
  v3({
    method: 'post',
    path: '/sandbox/v3/refund/domestic/refunds',
    summary: 'refund (the whole amount)',
    body: obj('sub_mchid, transaction_id or out_trade_no, out_refund_no, notify_url, amount'),
    answer: refund,
  }),
  v3({
    method: 'get',
    path: '/sandbox/v3/refund/domestic/refunds/:no',
    summary: 'query a refund by out_refund_no',
    query: z.object({ sub_mchid: z.string() }),
    answer: refund,
  }),
  v3({
    method: 'post',
    path: '/sandbox/v3/profitsharing/receivers/add',
    summary: 'add a profit-sharing receiver',
    description: 'A name is RSA-OAEP encrypted to the platform key, which `Wechatpay-Serial` names.',
    body: obj('sub_mchid, appid, type, account, name, relation_type'),
    answer: obj('sub_mchid, type, account, relation_type'),
  }),
  v3({
    method: 'post',
    path: '/sandbox/v3/profitsharing/receivers/delete',
    summary: 'delete a profit-sharing receiver',
    body: obj('sub_mchid, appid, type, account'),
    answer: obj('sub_mchid, type, account'),
  }),
  v3({
    method: 'post',
    path: '/sandbox/v3/profitsharing/orders',
    summary: 'split a paid profit-sharing order',
    body: obj('sub_mchid, appid, transaction_id, out_order_no, receivers, unfreeze_unsplit'),
    answer: split,
  }),
  v3({
    method: 'get',
    path: '/sandbox/v3/profitsharing/orders/:no',
    summary: 'query a split',
    query: z.object({ sub_mchid: z.string(), transaction_id: z.string() }),
    answer: split,
  }),
  v3({
    method: 'post',
    path: '/sandbox/v3/profitsharing/orders/unfreeze',
    summary: 'release what is still frozen',
    body: obj('sub_mchid, transaction_id, out_order_no, description'),
    answer: split,
  }),
  v3({
    method: 'get',
    path: '/sandbox/v3/profitsharing/transactions/:id/amounts',
    summary: 'the unsplit amount of an order',
    answer: z.object({ transaction_id: z.string(), unsplit_amount: z.number().int() }),
  }),
  v3({
    method: 'get',
    path: '/sandbox/v3/certificates',
    summary: 'the platform certificate, encrypted under the APIv3 key (AEAD_AES_256_GCM)',
    description: 'The answer names the certificate serial in either mode.',
    answer: obj('data: [{serial_no, effective_time, expire_time, encrypt_certificate}]'),
  }),
  v3({
    method: 'get',
    path: '/sandbox/v3/bill/tradebill',
    summary: "the trade bill of a day (the service provider's whole account)",
    description: 'Refusals NO_STATEMENT_EXIST (no trade that day) and STATEMENT_CREATING (fault `bills: creating`).',
    query: z.object({ bill_date: z.string(), bill_type: z.literal('ALL').optional(), tar_type: z.literal('GZIP').optional() }),
    answer: z.object({ hash_type: z.literal('SHA1'), hash_value: z.string(), download_url: z.string() }),
  }),
  v3({
    method: 'get',
    path: '/sandbox/v3/billdownload/file',
    summary: 'download a bill (the answer is the file, not signed: the hash vouches for it)',
    query: z.object({ token: z.string() }),
    answer: text('application/octet-stream', 'The bill (CSV; GZIP when the tar_type was GZIP)'),
  }),
];
