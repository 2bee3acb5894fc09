/**
 * The sandbox cashier: a small page where a person or a browser test "pays" a mini-program or app
 * payment (the H5 build of the mini-program hands its arguments here instead of paying). In the
 * payer's language (`?lang=`, else the browser's), with the kit's look.
 */
import type { Request } from 'express';
import { formatMoney } from '@kit/shared';
import { catalogue, esc, js, pageLang, renderPage } from '@kit/server/plugins/kit';
import type { SandboxOrder } from './sandbox-store';

/** Adds `sandboxResult=<result>` to a return URL's query; for a hash URL, to the part after `#`. */
export function withResult(returnUrl: string, result: 'paid' | 'cancel'): string {
  const add = (s: string) => `${s}${s.includes('?') ? (s.endsWith('?') || s.endsWith('&') ? '' : '&') : '?'}sandboxResult=${result}`;
  const hash = returnUrl.indexOf('#');
  return hash < 0 ? add(returnUrl) : `${returnUrl.slice(0, hash + 1)}${add(returnUrl.slice(hash + 1))}`;
}

/** Only http(s) URLs and paths: the page must not navigate to `javascript:` or other schemes. */
export function safeReturnUrl(url: string | undefined): string | null {
  if (!url) return null;
  if (/^https?:\/\//i.test(url) || (url.startsWith('/') && !url.startsWith('//'))) return url;
  return null;
}

type Key = 'title' | 'tag' | 'unknown' | 'unknownText' | 'waiting' | 'paid' | 'state' | 'pay' | 'cancel' | 'cancelled' | 'note' | 'failed';

const text = catalogue<Key>({
  en: {
    title: 'Sandbox cashier',
    tag: 'development',
    unknown: 'Unknown payment',
    unknownText: 'This sandbox has no order for this package.',
    waiting: 'Waiting for payment',
    paid: 'Paid',
    state: 'State: {state}',
    pay: 'Pay',
    cancel: 'Cancel',
    cancelled: 'Cancelled',
    note: 'Payment sandbox: no money moves. Paying makes the sandbox notify the service, as the platform would.',
    failed: 'payment failed',
  },
  'zh-CN': {
    title: '沙箱收银台',
    tag: '开发环境',
    unknown: '未知的支付',
    unknownText: '沙箱中没有这个 package 对应的订单。',
    waiting: '等待付款',
    paid: '已支付',
    state: '状态：{state}',
    pay: '支付',
    cancel: '取消',
    cancelled: '已取消',
    note: '支付沙箱：不会有真实资金流动。支付后，沙箱会像支付平台一样通知服务。',
    failed: '支付失败',
  },
});

const CASHIER_STYLE = `<style>.cashier{max-width:440px;margin:0 auto;text-align:center}.amount{font-size:2.6rem;font-weight:700;margin:.4rem 0}
.merchant{color:var(--muted);font-size:1.1rem}.cashier button{width:100%;margin-top:.7rem;font-size:1.15rem;min-height:52px}</style>`;

export function cashierPage(req: Request, order: SandboxOrder | undefined, returnUrl: string | null, now: number): string {
  const lang = pageLang(req);
  const t = text(lang);
  const page = (body: string, script?: string) => renderPage(req, { lang, title: t('title'), tag: t('tag'), body: `${CASHIER_STYLE}${body}`, script });
  if (!order) return page(`<div class="card cashier"><h2>${esc(t('unknown'))}</h2><p>${esc(t('unknownText'))}</p></div>`);
  const payable = order.state === 'NOTPAY' && (order.time_expire === null || order.time_expire > now);
  const state = order.state === 'NOTPAY' && !payable ? 'EXPIRED' : order.state;
  const paidUrl = returnUrl ? withResult(returnUrl, 'paid') : null;
  const cancelUrl = returnUrl ? withResult(returnUrl, 'cancel') : null;
  const stateText = state === 'NOTPAY' ? t('waiting') : state === 'SUCCESS' ? t('paid') : t('state', { state });
  return page(
    `<div class="card cashier">
<div class="merchant" id="sandbox-merchant">${esc(order.body)}</div>
<div class="amount" id="sandbox-amount">${formatMoney(order.total_fee)}</div>
<div id="sandbox-state" data-state="${state}">${esc(stateText)}</div>
<p class="message error" id="sandbox-message"></p>
<button class="primary" id="sandbox-pay" ${payable ? '' : 'disabled'}>${esc(t('pay'))}</button>
<button class="secondary" id="sandbox-cancel">${esc(t('cancel'))}</button>
<p class="note">${esc(t('note'))}</p>
</div>`,
    `const prepayId = ${js(order.prepay_id)}, paidUrl = ${js(paidUrl)}, cancelUrl = ${js(cancelUrl)}, T = ${js({ paid: t('paid'), failed: t('failed'), cancelled: t('cancelled') })};
const msg = document.getElementById('sandbox-message');
document.getElementById('sandbox-pay').addEventListener('click', async (ev) => {
  ev.target.disabled = true;
  try {
    const res = await fetch('pay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prepayId }) });
    const body = await res.json();
    if (body.status !== 'success') throw new Error(body.msg || T.failed);
    document.getElementById('sandbox-state').textContent = T.paid;
    document.getElementById('sandbox-state').dataset.state = 'SUCCESS';
    if (paidUrl) location.assign(paidUrl);
  } catch (e) {
    msg.textContent = e.message;
    ev.target.disabled = false;
  }
});
document.getElementById('sandbox-cancel').addEventListener('click', () => {
  if (cancelUrl) location.assign(cancelUrl); else msg.textContent = T.cancelled;
});`,
  );
}
