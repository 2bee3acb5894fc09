/**
 * The stand-in's Alipay cashier: the page a signed `alipay.trade.wap.pay` URL opens (a GET on the
 * sandbox's gateway), where a person or a browser test pays the order, as Alipay's own page in its
 * browser would. The URL's signature is checked first; a refused one shows Alipay's `sub_code`.
 * Paying posts the URL to `/sandbox/alipay/pay`, which sends the signed notification, then the page
 * goes to `return_url` with Alipay's signed return parameters; "Leave" goes to `quit_url`.
 * In the payer's language (`?lang=`, else the browser's); `lang` is not one of the signed parameters.
 */
import type { Request } from 'express';
import { formatMoney } from '@kit/shared';
import { catalogue, esc, js, pageLang, renderPage } from '@kit/server/plugins/kit';
import { safeReturnUrl } from '../cashier-page';
import type { WapOrder } from './sandbox-alipay';

type Key = 'title' | 'tag' | 'refused' | 'waiting' | 'paid' | 'closed' | 'expired' | 'pay' | 'leave' | 'left' | 'note' | 'failed' | 'order';

const text = catalogue<Key>({
  en: {
    title: 'Alipay sandbox cashier',
    tag: 'development',
    refused: 'Alipay refused this payment request',
    waiting: 'Waiting for payment',
    paid: 'Paid',
    closed: 'This trade is closed',
    expired: 'This payment request has expired',
    pay: 'Pay with Alipay',
    leave: 'Leave',
    left: 'You left the payment',
    note: 'Alipay sandbox: no money moves. Paying makes the sandbox notify the service, as Alipay would.',
    failed: 'payment failed',
    order: 'Order {no}',
  },
  'zh-CN': {
    title: '支付宝沙箱收银台',
    tag: '开发环境',
    refused: '支付宝拒绝了这个支付请求',
    waiting: '等待付款',
    paid: '已支付',
    closed: '交易已关闭',
    expired: '支付请求已过期',
    pay: '用支付宝付款',
    leave: '离开',
    left: '已离开支付',
    note: '支付宝沙箱：不会有真实资金流动。付款后，沙箱会像支付宝一样通知服务。',
    failed: '支付失败',
    order: '订单 {no}',
  },
});

const STYLE = `<style>.cashier{max-width:440px;margin:0 auto;text-align:center}.amount{font-size:2.6rem;font-weight:700;margin:.4rem 0}
.merchant{color:var(--muted);font-size:1.1rem}.cashier button{width:100%;margin-top:.7rem;font-size:1.15rem;min-height:52px}
.cashier button.primary{background:#0958d9}</style>`;

/** The page of a refused request: Alipay's sub_code and message. */
export function alipayRefusedPage(req: Request, subCode: string, message: string): string {
  const lang = pageLang(req);
  const t = text(lang);
  return renderPage(req, {
    lang,
    title: t('title'),
    tag: t('tag'),
    body: `${STYLE}<div class="card cashier"><h2 id="alipay-refused">${esc(t('refused'))}</h2><p><code id="alipay-sub-code">${esc(subCode)}</code></p><p class="muted">${esc(message)}</p></div>`,
  });
}

/** `signedUrl`: the wap URL as the kit signed it (without `lang`), which the Pay button hands to `/sandbox/alipay/pay`. */
export function alipayCashierPage(req: Request, order: WapOrder, signedUrl: string): string {
  const lang = pageLang(req);
  const t = text(lang);
  const payable = order.status === 'WAIT_BUYER_PAY';
  const stateText =
    order.status === 'WAIT_BUYER_PAY' ? t('waiting') : order.status === 'TRADE_SUCCESS' ? t('paid') : order.status === 'EXPIRED' ? t('expired') : t('closed');
  const quitUrl = safeReturnUrl(order.quitUrl ?? undefined);
  return renderPage(req, {
    lang,
    title: t('title'),
    tag: t('tag'),
    body: `${STYLE}<div class="card cashier">
<div class="merchant" id="alipay-subject">${esc(order.subject)}</div>
<div class="amount" id="alipay-amount">${formatMoney(order.totalCents)}</div>
<div class="muted" id="alipay-order">${esc(t('order', { no: order.merchantOrderNo ?? order.outTradeNo }))}</div>
<div id="alipay-state" data-state="${esc(order.status)}">${esc(stateText)}</div>
<p class="message error" id="alipay-message"></p>
<button class="primary" id="alipay-pay" ${payable ? '' : 'disabled'}>${esc(t('pay'))}</button>
<button class="secondary" id="alipay-leave">${esc(t('leave'))}</button>
<p class="note">${esc(t('note'))}</p>
</div>`,
    script: `const signedUrl = ${js(signedUrl)}, quitUrl = ${js(quitUrl)}, T = ${js({ paid: t('paid'), failed: t('failed'), left: t('left') })};
const msg = document.getElementById('alipay-message');
document.getElementById('alipay-pay').addEventListener('click', async (ev) => {
  ev.target.disabled = true;
  try {
    const res = await fetch('pay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ wapUrl: signedUrl }) });
    const body = await res.json();
    if (body.status !== 'success') throw new Error(body.msg || T.failed);
    const state = document.getElementById('alipay-state');
    state.textContent = T.paid;
    state.dataset.state = 'TRADE_SUCCESS';
    if (body.returnUrl) location.assign(body.returnUrl);
  } catch (e) {
    msg.textContent = e.message;
    ev.target.disabled = false;
  }
});
document.getElementById('alipay-leave').addEventListener('click', () => {
  if (quitUrl) location.assign(quitUrl); else msg.textContent = T.left;
});`,
  });
}
