/**
 * `GET /`: where the ready banner's first address leads. A newcomer finds every screen of the
 * service from here: the POS, the payer page, the console, the API reference and what a
 * development plug-in adds (the sandbox's page).
 */
import type { RequestHandler } from 'express';
import type { HomeLink } from '../../plugins/dev-plugin';
import { catalogue, esc, pageLang, renderPage, sendPage } from './page';

type Key = 'title' | 'intro' | 'pos' | 'posText' | 'mp' | 'mpText' | 'console' | 'consoleText' | 'docs' | 'docsText' | 'start' | 'more';

const text = catalogue<Key>({
  en: {
    title: 'Merchant kit',
    intro: 'Payments, points and chain records for a shop selling through the social app. Its screens and references:',
    pos: 'POS display',
    posText: 'Cashiers take payments, refund them and show points codes. Log in with a sub-merchant id and its password.',
    mp: 'Payer page',
    mpText: 'What a payer sees after scanning a payment code: open the link shown under a code on the POS.',
    console: 'Console',
    consoleText: "The merchant's back office.",
    docs: 'API reference',
    docsText: 'Every endpoint with its specification section, examples and errors ({openapi}).',
    start: 'A first shop to try it with: {command}',
    more: 'Service health: {health} · metrics: {metrics}',
  },
  'zh-CN': {
    title: '商户套件',
    intro: '为通过社交应用销售的商户提供支付、积分和上链记录。各个页面和参考文档：',
    pos: '收银台',
    posText: '收银员收款、退款、出示积分码。用子商户号和密码登录。',
    mp: '付款页',
    mpText: '付款人扫码后看到的页面：打开收银台付款码下方显示的链接。',
    console: '管理后台',
    consoleText: '商户的管理后台。',
    docs: '接口文档',
    docsText: '每个接口及其规范章节、示例和错误（{openapi}）。',
    start: '先建一个试用的店：{command}',
    more: '服务状态：{health} · 指标：{metrics}',
  },
});

/** `links`: a development plug-in's cards, after the service's own. */
export function homePage(opts: { basePath: string; links: readonly HomeLink[] }): RequestHandler {
  const at = (p: string) => `${opts.basePath}${p}`;
  return (req, res) => {
    const lang = pageLang(req);
    const t = text(lang);
    const card = (path: string, title: string, what: string, id: string) =>
      `<div class="card" data-testid="home-${id}"><h2><a href="${esc(at(path))}">${esc(title)}</a> <code>${esc(at(path))}</code></h2><p class="muted">${what}</p></div>`;
    const link = (path: string, name: Key, what: string, id: string) => card(path, t(name), what, id);
    const code = (s: string) => `<code>${esc(s)}</code>`;
    const body = [
      `<p>${esc(t('intro'))}</p>`,
      link('/pos/', 'pos', esc(t('posText')), 'pos'),
      link('/mp/', 'mp', esc(t('mpText')), 'mp'),
      link('/console/', 'console', esc(t('consoleText')), 'console'),
      link('/docs/', 'docs', t('docsText', { openapi: `<a href="${esc(at('/openapi.json'))}">OpenAPI</a>` }), 'docs'),
      ...opts.links.map((l) => card(l.path, l.title[lang], esc(l.text[lang]), l.id)),
      `<p class="note">${t('start', { command: code('npm run kit -- demo create --out demo.json') })}<br>${t('more', {
        health: `<a href="${esc(at('/health'))}">/health</a>`,
        metrics: `<a href="${esc(at('/metrics'))}">/metrics</a>`,
      })}</p>`,
    ].join('\n');
    sendPage(res, renderPage(req, { lang, title: t('title'), body }));
  };
}
