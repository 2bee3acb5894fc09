/**
 * The API reference page's "Try it" and language switch (served as `/docs/try-it.js`, bundled for
 * the browser by `docs-routes.ts`). Calls made from the page are signed here, in the browser, by the
 * rules of docs/signing.md with the same code as everywhere else (`@kit/shared/signing-core`: the
 * canonical query and the string to sign) and WebCrypto for the hashes. The app id and secret live
 * in this module's memory only: never stored, never put in a URL or a header, never sent; only the
 * signature travels, and a reload forgets them.
 */
import { stringToSignWith } from '@kit/shared/signing-core';

type Lang = 'en' | 'zh-CN';

const TEXT: Record<Lang, Record<string, string>> = {
  en: {
    title: 'Merchant kit API reference',
    tryTitle: 'Try it',
    lead: 'Open an operation, press “Try it out”, then “Execute”: signed calls are signed here, in this page, with the app below (the rules of the signing section, HMAC-SHA256 by the browser). The app id and secret stay in this page’s memory: they are never stored or sent, only the signature is; reloading the page forgets them.',
    appId: 'App id',
    secret: 'App secret',
    forget: 'Forget',
    none: 'No app entered: signed calls will be refused (401 signature_missing).',
    ready: 'Signed calls are signed as {appId}.',
    insecure: 'This browser signs only on a secure page (HTTPS, or 127.0.0.1 / localhost): signed calls cannot be tried here.',
    lang: 'Language',
  },
  'zh-CN': {
    title: '商户工具包 API 参考',
    tryTitle: '在线调用',
    lead: '展开一个接口，点 “Try it out”，再点 “Execute”：需要签名的调用在本页内用下面的应用签名（按签名一节的规则，由浏览器计算 HMAC-SHA256）。应用 id 和密钥只保存在本页的内存中：不会被存储或发送，发送的只有签名；刷新页面即忘记。',
    appId: '应用 id',
    secret: '应用密钥',
    forget: '清除',
    none: '尚未填写应用：需要签名的调用会被拒绝（401 signature_missing）。',
    ready: '需要签名的调用将以 {appId} 签名。',
    insecure: '浏览器只在安全页面（HTTPS，或 127.0.0.1 / localhost）上签名：这里无法试用需要签名的调用。',
    lang: '语言',
  },
};

/** What the service says its signed operations are: a method and a path pattern each. */
interface SignedOperation {
  method: string;
  pattern: RegExp;
}

interface SwaggerRequest {
  url: string;
  method: string;
  body?: unknown;
  headers?: Record<string, string>;
  loadSpec?: boolean;
}

let credentials: { appId: string; appSecret: string } | null = null;
let lastT = 0;
let signed: SignedOperation[] = [];

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** `_t` in milliseconds, strictly increasing in this page: two identical calls in one millisecond are not replays. */
function nextT(now = Date.now()): number {
  lastT = Math.max(now, lastT + 1);
  return lastT;
}

/**
 * Signs a request to `url` for the service whose base URL is `base` (docs/signing.md): `_appid`
 * and `_t` join the query, `_s` is computed over METHOD, the path after the base, the canonical
 * query and the body's SHA-256. Answers the URL to call. Exported for the page's tests.
 */
export async function signUrl(
  req: { method: string; url: string; body: string },
  base: string,
  creds: { appId: string; appSecret: string },
  t: number,
): Promise<string> {
  const url = new URL(req.url, base);
  const basePath = new URL(base).pathname.replace(/\/$/, '');
  const path = url.pathname.slice(basePath.length) || '/';
  const pairs: Array<[string, string]> = [...url.searchParams].filter(([k]) => k !== '_appid' && k !== '_t' && k !== '_s');
  pairs.push(['_appid', creds.appId], ['_t', String(t)]);
  const text = new TextEncoder();
  const bodyHash = hex(await crypto.subtle.digest('SHA-256', text.encode(req.body)));
  const key = await crypto.subtle.importKey('raw', text.encode(creds.appSecret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const s = hex(await crypto.subtle.sign('HMAC', key, text.encode(stringToSignWith({ method: req.method, path, query: pairs }, bodyHash))));
  url.search = new URLSearchParams([...pairs, ['_s', s]]).toString();
  return url.href;
}

/** The signed operations of a loaded document (those whose security names the `appId` scheme). */
export function signedOperations(spec: { paths?: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>> }): SignedOperation[] {
  const out: SignedOperation[] = [];
  for (const [path, ops] of Object.entries(spec.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      if (!op?.security?.some((s) => 'appId' in s)) continue;
      const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      out.push({ method: method.toUpperCase(), pattern });
    }
  }
  return out;
}

/** The service's base URL: the page is `<base>/docs/`. */
const serviceBase = () => new URL('../', window.location.href).href;

/** Swagger UI's hook: a call to a signed operation is signed, anything else goes as it is. */
async function requestInterceptor(req: SwaggerRequest): Promise<SwaggerRequest> {
  if (req.loadSpec || !credentials || !crypto?.subtle) return req;
  const base = serviceBase();
  const path = '/' + new URL(req.url, base).pathname.slice(new URL(base).pathname.length);
  const method = req.method.toUpperCase();
  if (!signed.some((o) => o.method === method && o.pattern.test(path))) return req;
  // The bytes signed are the bytes sent.
  const body = typeof req.body === 'string' ? req.body : req.body == null ? '' : JSON.stringify(req.body);
  if (req.body != null) req.body = body;
  req.url = await signUrl({ method, url: req.url, body }, base, credentials, nextT());
  return req;
}

function initialLang(): Lang {
  const asked = new URLSearchParams(window.location.search).get('lang');
  if (asked === 'zh-CN' || asked === 'en') return asked;
  return /^zh/i.test(navigator.language ?? '') ? 'zh-CN' : 'en';
}

type Render = (
  lang: Lang,
  interceptor: (req: SwaggerRequest) => Promise<SwaggerRequest>,
) => {
  getSystem(): { specSelectors: { specJson(): { toJS(): unknown } } };
};

/** Builds the panel and the language switch, and renders the reference in the page's language (again on a switch). */
export function start(render: Render): void {
  let lang = initialLang();
  const panel = document.getElementById('try-it')!;
  const $ = <E extends HTMLElement>(id: string) => document.getElementById(id) as E;
  const appId = $<HTMLInputElement>('try-app-id');
  const secret = $<HTMLInputElement>('try-app-secret');
  const status = $('try-status');
  const secure = !!globalThis.crypto?.subtle;

  const say = () => {
    const t = TEXT[lang];
    document.documentElement.lang = lang;
    document.title = t.title;
    for (const el of panel.querySelectorAll<HTMLElement>('[data-text]')) el.textContent = t[el.dataset.text!];
    for (const b of document.querySelectorAll<HTMLButtonElement>('[data-lang]')) b.setAttribute('aria-pressed', String(b.dataset.lang === lang));
    status.textContent = !secure ? t.insecure : credentials ? t.ready.replace('{appId}', credentials.appId) : t.none;
    status.className = !secure ? 'try-status bad' : credentials ? 'try-status ok' : 'try-status';
  };
  const keep = () => {
    const id = appId.value.trim();
    credentials = id && secret.value ? { appId: id, appSecret: secret.value } : null;
    say();
  };
  appId.addEventListener('input', keep);
  secret.addEventListener('input', keep);
  $('try-forget').addEventListener('click', () => {
    appId.value = '';
    secret.value = '';
    keep();
  });
  appId.disabled = secret.disabled = !secure;

  const show = () => {
    const ui = render(lang, requestInterceptor);
    // The signed operations, once the document is there (the interceptor signs only those).
    const poll = window.setInterval(() => {
      const spec = ui.getSystem().specSelectors.specJson().toJS() as Parameters<typeof signedOperations>[0];
      if (!spec?.paths) return;
      signed = signedOperations(spec);
      window.clearInterval(poll);
    }, 100);
  };
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-lang]')) {
    b.addEventListener('click', () => {
      if (b.dataset.lang === lang) return;
      lang = b.dataset.lang as Lang;
      const url = new URL(window.location.href);
      url.searchParams.set('lang', lang);
      window.history.replaceState(window.history.state, '', url);
      say();
      show();
    });
  }
  say();
  show();
}

// In the page (not when a test imports the module), `init.js` starts it.
if (typeof window !== 'undefined') (window as unknown as { KitTryIt: unknown }).KitTryIt = { start };
