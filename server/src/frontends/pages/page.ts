/**
 * The small server-rendered pages (the service's front page, the sandbox's pages): one look, the
 * kit's colours, and the two languages of the front ends, picked as they pick them (`?lang=` wins,
 * then the browser's language). Each page keeps its own catalogue; this module holds what they share.
 */
import type { Request, Response } from 'express';
import { deviceLang, explicitLang, interpolate, LANGS, type Lang, type MessageParams } from '@kit/shared';

export type { Lang };

/** `?lang=zh-CN|en` first, then the first language of `Accept-Language`. */
export function pageLang(req: Request): Lang {
  const asked = explicitLang(typeof req.query.lang === 'string' ? req.query.lang : undefined);
  return asked ?? deviceLang([(req.headers['accept-language'] ?? '').split(',')[0]?.split(';')[0]]);
}

/** A catalogue per language; `text(lang)` gives a translator for one of them. */
export function catalogue<K extends string>(texts: Record<Lang, Record<K, string>>) {
  return (lang: Lang) =>
    (key: K, params?: MessageParams): string =>
      interpolate(texts[lang][key], params);
}

export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** JSON safe inside a <script> element. */
export const js = (v: unknown) =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

const LANG_NAMES: Record<Lang, string> = { 'zh-CN': '中文', en: 'English' };

/** The language switch: this page's URL with `lang` set, every other query parameter kept. */
function langSwitch(req: Request, lang: Lang): string {
  const links = LANGS.map((l) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query)) if (k !== 'lang' && typeof v === 'string') q.set(k, v);
    q.set('lang', l);
    const current = l === lang ? ' aria-current="true"' : '';
    return `<a href="?${esc(q.toString())}" lang="${l}" data-lang="${l}"${current}>${LANG_NAMES[l]}</a>`;
  });
  return `<nav class="langs">${links.join('')}</nav>`;
}

const STYLE = `:root{--bg:#f3f4f6;--card:#fff;--ink:#111827;--muted:#4b5563;--brand:#0f766e;--brand-dark:#0b3b37;--ok:#15803d;--bad:#b91c1c;--line:#d1d5db;
font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','Noto Sans CJK SC','Noto Sans SC','PingFang SC','Microsoft YaHei',sans-serif;font-size:17px;color:var(--ink);background:var(--bg)}
:root:lang(zh-CN){font-family:'Noto Sans CJK SC','Noto Sans SC','PingFang SC','Microsoft YaHei',system-ui,sans-serif}
*{box-sizing:border-box}body{margin:0;line-height:1.45}
header{background:var(--brand-dark);color:#fff;padding:.8rem 1.2rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem}
header h1{font-size:1.3rem;margin:0;flex:1 1 auto;white-space:nowrap}header .tag{font-size:.8rem;background:#134e4a;border-radius:999px;padding:.15rem .7rem}
.langs{display:flex;gap:.3rem}.langs a{color:#d1fae5;text-decoration:none;padding:.2rem .6rem;border-radius:8px}.langs a[aria-current]{background:#fff;color:var(--brand-dark);font-weight:600}
main{max-width:860px;margin:1.4rem auto;padding:0 1rem}
.card{background:var(--card);border-radius:16px;padding:1.2rem 1.4rem;box-shadow:0 2px 10px rgb(0 0 0/8%);margin-bottom:1rem}
.card h2{font-size:1.15rem;margin:0 0 .5rem}.card>p:last-child{margin-bottom:0}.muted,.note{color:var(--muted)}.note{font-size:.9rem}
a{color:var(--brand)}code{background:#eef2f1;border-radius:6px;padding:.05rem .35rem;font-size:.9em;overflow-wrap:anywhere}
button{font:inherit;border:0;border-radius:10px;padding:.55rem 1.1rem;min-height:44px;cursor:pointer;white-space:nowrap}
button.primary{background:var(--brand);color:#fff;font-weight:600}button.secondary{background:#e5e7eb;color:var(--ink)}
button:disabled{background:#d1d5db;color:#374151;cursor:not-allowed}
input,select{font:inherit;padding:.5rem .7rem;border:2px solid var(--line);border-radius:10px;background:#fff;width:100%}
input:focus,select:focus{outline:3px solid #99f6e4;border-color:var(--brand)}
label{display:block;font-weight:600;color:var(--muted);margin:.6rem 0}.row{display:flex;gap:.6rem;margin-top:.8rem;flex-wrap:wrap}
.message{min-height:1.4em;margin:.6rem 0 0;font-weight:600}.message.ok{color:var(--ok)}.message.error{color:var(--bad)}`;

export interface PageParts {
  lang: Lang;
  title: string;
  /** A short word after the title, e.g. "development". */
  tag?: string;
  body: string;
  script?: string;
}

export function renderPage(req: Request, p: PageParts): string {
  return `<!doctype html><html lang="${p.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(p.title)}</title><link rel="icon" href="data:,"><style>${STYLE}</style></head><body>
<header><h1>${esc(p.title)}</h1>${p.tag ? `<span class="tag">${esc(p.tag)}</span>` : ''}${langSwitch(req, p.lang)}</header>
<main>${p.body}</main>${p.script ? `<script>${p.script}</script>` : ''}</body></html>`;
}

/** Headers of these pages: inline style and script of their own, nothing from elsewhere. */
export function sendPage(res: Response, html: string, status = 200): void {
  res
    .status(status)
    .set({
      'Content-Security-Policy':
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
    })
    .type('html')
    .send(html);
}
