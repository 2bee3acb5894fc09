/**
 * The sandbox cashier: a small page where a person or a browser test "pays" a mini-program or app
 * payment (the H5 build of the mini-program hands its arguments here instead of paying).
 */
import { formatMoney } from '@kit/shared';
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

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON safe inside a <script> element. */
const js = (v: unknown) =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

export function cashierPage(order: SandboxOrder | undefined, returnUrl: string | null): string {
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Sandbox cashier</title>
<style>body{font-family:system-ui,sans-serif;max-width:420px;margin:40px auto;padding:0 16px;color:#222}.card{border:1px solid #ddd;border-radius:12px;padding:24px;text-align:center}
.amount{font-size:40px;font-weight:600;margin:12px 0}.merchant{color:#555}button{font-size:18px;padding:12px 0;width:100%;margin-top:12px;border-radius:8px;border:0;cursor:pointer}
#sandbox-pay{background:#07c160;color:#fff}#sandbox-cancel{background:#eee}.note{color:#888;font-size:13px;margin-top:16px}#sandbox-message{color:#c00;min-height:1em}</style></head><body>`;
  if (!order) return `${head}<div class="card"><h1>Unknown payment</h1><p>This sandbox has no order for this package.</p></div></body></html>`;
  const payable = order.state === 'NOTPAY' && (order.time_expire === null || order.time_expire > Date.now());
  const state = order.state === 'NOTPAY' && !payable ? 'EXPIRED' : order.state;
  const paidUrl = returnUrl ? withResult(returnUrl, 'paid') : null;
  const cancelUrl = returnUrl ? withResult(returnUrl, 'cancel') : null;
  return `${head}<div class="card">
<div class="merchant" id="sandbox-merchant">${esc(order.body)}</div>
<div class="amount" id="sandbox-amount">${formatMoney(order.total_fee)}</div>
<div id="sandbox-state" data-state="${state}">${state === 'NOTPAY' ? 'Waiting for payment' : esc(state)}</div>
<p id="sandbox-message"></p>
<button id="sandbox-pay" ${payable ? '' : 'disabled'}>Pay</button>
<button id="sandbox-cancel">Cancel</button>
<p class="note">Payment sandbox: no money moves. Paying makes the sandbox notify the service, as the platform would.</p>
</div>
<script>
const prepayId = ${js(order.prepay_id)}, paidUrl = ${js(paidUrl)}, cancelUrl = ${js(cancelUrl)};
const msg = document.getElementById('sandbox-message');
document.getElementById('sandbox-pay').addEventListener('click', async (ev) => {
  ev.target.disabled = true;
  try {
    const res = await fetch('pay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prepayId }) });
    const body = await res.json();
    if (body.status !== 'success') throw new Error(body.msg || 'payment failed');
    document.getElementById('sandbox-state').textContent = 'Paid';
    document.getElementById('sandbox-state').dataset.state = 'SUCCESS';
    if (paidUrl) location.assign(paidUrl);
  } catch (e) {
    msg.textContent = e.message;
    ev.target.disabled = false;
  }
});
document.getElementById('sandbox-cancel').addEventListener('click', () => {
  if (cancelUrl) location.assign(cancelUrl); else msg.textContent = 'Cancelled';
});
</script></body></html>`;
}
