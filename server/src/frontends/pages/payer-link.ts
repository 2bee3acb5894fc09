/**
 * `GET /p/<prepayId>`: the POS's one code for any wallet (design 6.3). The code holds this short
 * link; what happens depends on the app that opened it:
 *
 * - the social app: the social platform opens the mini-program when the merchant registered the
 *   link's prefix (its link rule); a link that still reaches us in the app's browser goes to the
 *   payer page, which pays as it does today;
 * - Alipay's own browser: the payer page too, which pays with Alipay there (`alipayWap` through `/mp/api/pay`);
 * - any other browser: a page that says, in both languages, to scan with either app (the wallets'
 *   names as their looks declare them).
 *
 * The apps are told apart by the user agent each app's browser sends (a token of the app's own, not
 * a field of a payment protocol), which each provider declares (`payerBrowser`, asked through the
 * registry). The link does not read the order: the payer page says whether it
 * exists and can still be paid.
 */
import type { RequestHandler } from 'express';
import { LANGS, buildScene, everyWalletName } from '@kit/shared';
import { payerBrowserRealm } from '../../payments/providers/registry';
import { catalogue, esc, pageLang, renderPage, sendPage, type Lang } from './page';

const PREPAY_ID = /^[0-9A-Za-z]{1,64}$/;

/** The payer page (the mini-program's H5 build) for an order, relative to this service. */
export const payerPagePath = (basePath: string, prepayId: string) => `${basePath}/mp/#/pages/pay/index?scene=${encodeURIComponent(buildScene(prepayId))}`;

type Key = 'title' | 'scan' | 'how' | 'order' | 'missing';

const text = catalogue<Key>({
  en: {
    title: 'Pay this order',
    scan: 'Scan this code with {wallets} to pay.',
    how: 'Open either app, tap its scanner and point it at the code on the counter screen. This browser cannot pay.',
    order: 'Order {id}',
    missing: 'This link holds no order. Scan the code on the counter screen again.',
  },
  'zh-CN': {
    title: '支付此订单',
    scan: '请用{wallets}扫码付款。',
    how: '打开任一应用，点“扫一扫”，对准收银屏上的付款码。此浏览器无法付款。',
    order: '订单 {id}',
    missing: '此链接不含订单，请重新扫描收银屏上的付款码。',
  },
});

/** The page for a browser that cannot pay: what to do, in the page's language first and the other one after it. */
function scanWithAppPage(lang: Lang, prepayId: string | null): string {
  const langs = [lang, ...LANGS.filter((l) => l !== lang)];
  return langs
    .map((l, i) => {
      const t = text(l);
      const lines = prepayId
        ? `<h2 data-testid="scan-with-app">${esc(t('scan', { wallets: everyWalletName(l, ' or with ') }))}</h2><p class="muted">${esc(t('how'))}</p><p class="note">${esc(t('order', { id: prepayId }))}</p>`
        : `<h2 data-testid="scan-with-app">${esc(t('missing'))}</h2>`;
      return `<div class="card" lang="${l}" data-lang-block="${l}"${i > 0 ? ' style="opacity:.85"' : ''}>${lines}</div>`;
    })
    .join('\n');
}

export function payerLink(opts: { basePath: string }): RequestHandler {
  return (req, res) => {
    const id = typeof req.params.prepayId === 'string' && PREPAY_ID.test(req.params.prepayId) ? req.params.prepayId : null;
    // The realm of an app whose browser can pay (each provider declares its app's: `payerBrowser`), or null.
    const app = payerBrowserRealm(req.get('user-agent'));
    // Answers differ by user agent: a cache in between must keep them apart.
    res.set('Vary', 'User-Agent, Accept-Language');
    if (id && app) {
      res.set('Cache-Control', 'no-store').redirect(302, payerPagePath(opts.basePath, id));
      return;
    }
    const lang = pageLang(req);
    sendPage(res, renderPage(req, { lang, title: text(lang)('title'), body: scanWithAppPage(lang, id) }), id ? 200 : 404);
  };
}
