/**
 * `GET /sandbox/`: the sandbox for a person. Pay a scan-code QR's content or a channel prepay id
 * (what `POST /sandbox/pay` does), and set the faults (`POST /sandbox/faults`), in both languages.
 */
import type { RequestHandler } from 'express';
import { type Lang, catalogue, esc, js, pageLang, renderPage, sendPage } from '@kit/server/plugins/kit';
import { WALLETS, looksOfChannel } from '@kit/shared';
import type { Faults } from './sandbox-faults';

type Key =
  | 'title'
  | 'tag'
  | 'intro'
  | 'payTitle'
  | 'payLabel'
  | 'payHint'
  | 'pay'
  | 'paying'
  | 'paid'
  | 'faultsTitle'
  | 'faultsIntro'
  | 'payNotifications'
  | 'refunds'
  | 'refundNotifications'
  | 'splits'
  | 'bills'
  | 'ready'
  | 'creating'
  | 'truncated'
  | 'billsNote'
  | 'apply'
  | 'reset'
  | 'applied'
  | 'scripts'
  | 'back'
  | 'deliver'
  | 'drop'
  | 'answer'
  | 'hold'
  | 'enterCode'
  | 'v3Serial'
  | 'public-key'
  | 'certificate'
  | 'switching'
  | 'codeTitle'
  | 'codeIntro'
  | 'codeWallet'
  | 'codeBehaviour'
  | 'codeShow'
  | 'codeConfirm'
  | 'codeConfirmed'
  | 'code.pay'
  | 'code.confirm'
  | 'code.never'
  | 'code.balance'
  | 'code.silent';

const text = catalogue<Key>({
  en: {
    title: 'Payment sandbox',
    tag: 'development',
    intro: 'This sandbox plays the payment platform outside production: no money moves. Paying here makes it notify the service as the platform would.',
    payTitle: 'Pay a code',
    payLabel: 'Scan-code QR content (code_url) or channel prepay id',
    payHint: 'The POS shows the code_url under its scan-code QR in development.',
    pay: 'Pay',
    paying: 'Paying…',
    paid: 'Paid: transaction {transactionId}. The POS turns to "paid".',
    faultsTitle: 'Faults',
    faultsIntro:
      'Make the platform lose what it sometimes loses, and watch payments and refunds converge anyway. Kept in memory until changed or until the service restarts.',
    payNotifications: 'Payment notifications',
    refunds: 'Refund calls',
    refundNotifications: 'Refund notifications',
    splits: 'Profit-sharing calls',
    bills: 'Trade bills',
    ready: 'ready',
    creating: 'still being made',
    truncated: 'cut short',
    billsNote:
      'The bill faults that name orders (billAmountChanged, billOmitted, billNextDay, billExtraPayments) are set with POST …/sandbox/faults; applying here keeps them.',
    apply: 'Apply',
    reset: 'Back to normal',
    applied: 'Faults set.',
    scripts: 'From a shell: {pay} and {faults}.',
    back: 'All screens of the service',
    deliver: 'deliver',
    drop: 'drop (never sent)',
    answer: 'answer',
    hold: 'hold (never answered)',
    enterCode: 'Paste a code_url or a prepay id first.',
    v3Serial: 'API v3 signatures name',
    'public-key': 'the platform public key (PUB_KEY_ID_…)',
    certificate: 'the platform certificate (certificate mode)',
    switching: 'either, by turns (a merchant switching from certificates to the public key)',
    codeTitle: "The payer's payment code",
    codeIntro:
      'The code a payer shows at the counter: scan it (or type its digits) in the POS\'s "Scan the payer\'s code". How its payment goes is chosen here; a code is good once.',
    codeWallet: 'Wallet',
    codeBehaviour: 'When the cashier scans it',
    codeShow: 'Show a payment code',
    codeConfirm: 'Confirm on the phone',
    codeConfirmed: 'Confirmed: the payment is done.',
    'code.pay': 'paid at once',
    'code.confirm': 'the payer confirms on the phone (by the button, or after 10 s)',
    'code.never': 'the payer never confirms',
    'code.balance': 'refused: balance too low',
    'code.silent': 'the money is taken, no answer comes',
  },
  'zh-CN': {
    title: '支付沙箱',
    tag: '开发环境',
    intro: '在非生产环境中，沙箱代替支付平台：不会有真实资金流动。在这里支付后，沙箱会像支付平台一样通知服务。',
    payTitle: '支付付款码',
    payLabel: '扫码支付二维码内容（code_url）或渠道预支付 ID',
    payHint: '开发环境下，收银台在扫码支付二维码下方显示 code_url。',
    pay: '支付',
    paying: '正在支付…',
    paid: '已支付：交易号 {transactionId}。收银台会显示“已支付”。',
    faultsTitle: '故障',
    faultsIntro: '让支付平台丢失它有时会丢失的东西，看支付和退款照样收敛。保存在内存中，直到再次修改或服务重启。',
    payNotifications: '支付通知',
    refunds: '退款请求',
    refundNotifications: '退款通知',
    splits: '分账请求',
    bills: '交易账单',
    ready: '已生成',
    creating: '生成中',
    truncated: '被截断',
    billsNote: '指定订单的账单故障（billAmountChanged、billOmitted、billNextDay、billExtraPayments）用 POST …/sandbox/faults 设置；在此应用会保留它们。',
    apply: '应用',
    reset: '恢复正常',
    applied: '故障已设置。',
    scripts: '在命令行中：{pay} 和 {faults}。',
    back: '服务的所有页面',
    deliver: '送达',
    drop: '丢弃（从不发送）',
    answer: '应答',
    hold: '挂起（从不应答）',
    enterCode: '请先粘贴 code_url 或预支付 ID。',
    v3Serial: 'API v3 签名使用',
    'public-key': '平台公钥（PUB_KEY_ID_…）',
    certificate: '平台证书（证书模式）',
    switching: '两者轮流（商户正从平台证书切换到微信支付公钥）',
    codeTitle: '付款人的付款码',
    codeIntro: '付款人在收银台出示的码：在收银台的“扫付款码”中扫描（或输入数字）。支付结果在这里选择；每个码只能用一次。',
    codeWallet: '钱包',
    codeBehaviour: '收银员扫码后',
    codeShow: '出示付款码',
    codeConfirm: '在手机上确认',
    codeConfirmed: '已确认：支付完成。',
    'code.pay': '立即支付成功',
    'code.confirm': '付款人在手机上确认（点按钮，或 10 秒后）',
    'code.never': '付款人始终不确认',
    'code.balance': '被拒绝：余额不足',
    'code.silent': '已扣款，但没有应答',
  },
});

/** The faults a person picks from a list here; the ones that name orders are set through the API. */
type ChoiceFault = 'payNotifications' | 'refunds' | 'refundNotifications' | 'splits' | 'bills' | 'v3Serial';

const FAULT_CHOICES: Array<
  [ChoiceFault, Array<'deliver' | 'drop' | 'answer' | 'hold' | 'ready' | 'creating' | 'truncated' | 'public-key' | 'certificate' | 'switching'>]
> = [
  ['payNotifications', ['deliver', 'drop']],
  ['refunds', ['answer', 'hold']],
  ['refundNotifications', ['deliver', 'drop']],
  ['splits', ['answer', 'hold']],
  ['bills', ['ready', 'creating', 'truncated']],
  ['v3Serial', ['public-key', 'certificate', 'switching']],
];

const BEHAVIOURS = ['pay', 'confirm', 'never', 'balance', 'silent'] as const;

/** A wallet as the code's menu names it: the name of the channel its payment codes go through (`@kit/shared/wallets`), or its id. */
function walletName(lang: Lang, wallet: string): string {
  const channel = WALLETS.find((w) => w.id === wallet)?.paymentCode?.channel;
  return (channel && looksOfChannel(channel)?.names[lang]) ?? wallet;
}

function body(lang: Lang, faults: Faults, home: string, wallets: readonly string[]): { body: string; script: string } {
  const t = text(lang);
  const codeSection = `<section class="card" data-testid="sandbox-payment-code"><h2>${esc(t('codeTitle'))}</h2><p class="muted">${esc(t('codeIntro'))}</p>
<label>${esc(t('codeWallet'))}<select id="code-wallet" data-testid="code-wallet">${wallets.map((w) => `<option value="${esc(w)}">${esc(walletName(lang, w))}</option>`).join('')}</select></label>
<label>${esc(t('codeBehaviour'))}<select id="code-behaviour" data-testid="code-behaviour">${BEHAVIOURS.map((b) => `<option value="${b}">${esc(t(`code.${b}`))}</option>`).join('')}</select></label>
<div class="row"><button class="primary" id="code-show" data-testid="code-show">${esc(t('codeShow'))}</button></div>
<div id="code-shown" hidden><img id="code-barcode" data-testid="code-barcode" alt="" style="max-width:100%;image-rendering:pixelated"><p class="code-digits" id="code-digits" data-testid="code-digits" style="font:600 1.4rem/1.2 ui-monospace,monospace;letter-spacing:.08em"></p>
<div class="row"><button class="secondary" id="code-confirm" data-testid="code-confirm">${esc(t('codeConfirm'))}</button></div></div>
<p class="message" id="code-message" data-testid="code-message" role="status"></p></section>`;
  const selects = FAULT_CHOICES.map(
    ([field, values]) =>
      `<label>${esc(t(field))} <code>${field}</code><select name="${field}" data-testid="fault-${field}">${values
        .map((v) => `<option value="${v}"${faults[field] === v ? ' selected' : ''}>${esc(t(v))}</option>`)
        .join('')}</select></label>`,
  ).join('');
  const html = `<p>${esc(t('intro'))}</p>
<section class="card"><h2>${esc(t('payTitle'))}</h2>
<label>${esc(t('payLabel'))}<input id="sandbox-code" data-testid="sandbox-code" autocomplete="off" spellcheck="false" placeholder="weixin://wxpay/bizpayurl?pr=…"></label>
<p class="note">${esc(t('payHint'))}</p>
<div class="row"><button class="primary" id="sandbox-pay-code" data-testid="sandbox-pay-code">${esc(t('pay'))}</button></div>
<p class="message" id="pay-message" data-testid="pay-message" role="status"></p></section>
${codeSection}
<section class="card"><h2>${esc(t('faultsTitle'))}</h2><p class="muted">${esc(t('faultsIntro'))}</p>${selects}
<p class="note">${esc(t('billsNote'))}</p>
<div class="row"><button class="primary" id="faults-apply" data-testid="faults-apply">${esc(t('apply'))}</button><button class="secondary" id="faults-reset" data-testid="faults-reset">${esc(t('reset'))}</button></div>
<p class="message" id="faults-message" data-testid="faults-message" role="status"></p></section>
<p class="note">${t('scripts', {
    pay: `<code>curl -XPOST …/sandbox/pay -H 'content-type: application/json' -d '{"codeUrl":"…"}'</code>`,
    faults: `<code>POST …/sandbox/faults</code>`,
  })}<br><a href="${esc(home)}">${esc(t('back'))}</a></p>`;
  const script = `const T = ${js({ paying: t('paying'), pay: t('pay'), applied: t('applied'), enterCode: t('enterCode'), paid: t('paid'), confirmed: t('codeConfirmed') })};
const show = (id, text, ok) => { const el = document.getElementById(id); el.textContent = text; el.className = 'message ' + (ok ? 'ok' : 'error'); };
const post = async (path, body) => {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await res.json();
  if (answer.status !== 'success') throw new Error(answer.msg || res.statusText);
  return answer;
};
document.getElementById('sandbox-pay-code').addEventListener('click', async (ev) => {
  const code = document.getElementById('sandbox-code').value.trim();
  if (!code) return show('pay-message', T.enterCode, false);
  ev.target.disabled = true; ev.target.textContent = T.paying;
  try {
    const { transactionId } = await post('pay', /^[a-z]+:\\/\\//i.test(code) ? { codeUrl: code } : { prepayId: code });
    show('pay-message', T.paid.replace('{transactionId}', transactionId), true);
  } catch (e) { show('pay-message', e.message, false); }
  ev.target.disabled = false; ev.target.textContent = T.pay;
});
let shownCode = '';
document.getElementById('code-show').addEventListener('click', async () => {
  try {
    const { code } = await post('payment-code', { wallet: document.getElementById('code-wallet').value, behaviour: document.getElementById('code-behaviour').value });
    shownCode = code;
    document.getElementById('code-barcode').src = 'payment-code.svg?code=' + code;
    document.getElementById('code-digits').textContent = code.replace(/(\\d{4})(?=\\d)/g, '$1 ');
    document.getElementById('code-shown').hidden = false;
    show('code-message', '', true);
  } catch (e) { show('code-message', e.message, false); }
});
document.getElementById('code-confirm').addEventListener('click', async () => {
  try {
    await post('payment-code/confirm', { code: shownCode });
    show('code-message', T.confirmed, true);
  } catch (e) { show('code-message', e.message, false); }
});
const setFaults = async (faults) => {
  try {
    const answer = await post('faults', faults);
    for (const [k, v] of Object.entries(answer.faults)) { const s = document.querySelector('select[name="' + k + '"]'); if (s) s.value = v; }
    show('faults-message', T.applied, true);
  } catch (e) { show('faults-message', e.message, false); }
};
document.getElementById('faults-apply').addEventListener('click', async () => {
  // A post replaces the whole set: the faults not on this page are kept as they are.
  let faults = {};
  try { faults = (await (await fetch('faults')).json()).faults; } catch { /* the post says what is wrong */ }
  for (const s of document.querySelectorAll('select[name]')) faults[s.name] = s.value;
  void setFaults(faults);
});
document.getElementById('faults-reset').addEventListener('click', () => void setFaults({}));`;
  return { body: html, script };
}

/** `wallets`: the wallets whose payment codes it shows (their ids, `@kit/shared/wallets`). */
export function sandboxPage(faults: () => Faults, home: string, wallets: readonly string[]): RequestHandler {
  return (req, res) => {
    // `/sandbox` → `/sandbox/`, so that the page's relative calls (`pay`, `faults`) resolve under it.
    const [path, query] = req.originalUrl.split(/\?(.*)/s, 2);
    if (!path.endsWith('/')) return res.redirect(301, `${path}/${query ? `?${query}` : ''}`);
    const lang = pageLang(req);
    const t = text(lang);
    const parts = body(lang, faults(), home, wallets);
    sendPage(res, renderPage(req, { lang, title: t('title'), tag: t('tag'), ...parts }));
  };
}
