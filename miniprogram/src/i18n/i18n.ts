/**
 * The payer page's language: `?lang=zh-CN|en` (H5: in the page URL or its hash query) wins, then
 * the language of the device (weapp: the social app's language; H5: the browser's): `zh*` →
 * Chinese, otherwise English. Chosen once when the page opens.
 */
import Taro from '@tarojs/taro';
import { deviceLang, explicitLang, interpolate, type Lang, type MessageParams } from '@kit/shared/i18n';
import { looksOfChannel } from '@kit/shared/wallets/looks';
import { MESSAGES, type MessageKey } from './messages';

export type { Lang, MessageKey };

/** Why something failed, as the page keeps it: translated only when shown. */
export interface Problem {
  /** The router's `error` id. */
  error?: string;
  /** The code to quote when the id has no text of its own. */
  code?: string;
  /** No answer came (network down, timeout). */
  network?: boolean;
}

export interface Translator {
  lang: Lang;
  (key: MessageKey, params?: MessageParams): string;
  problem(p: Problem): string;
  /** A payment channel as its wallet names it to the payer ("the social app", "a bank card"); an unknown one as it came. */
  channel(channel: string): string;
}

export function translator(lang: Lang): Translator {
  const catalogue = MESSAGES[lang];
  const t = ((key: MessageKey, params?: MessageParams) => interpolate(catalogue[key] ?? MESSAGES.en[key] ?? key, params)) as Translator;
  t.lang = lang;
  t.problem = (p) => {
    if (p.network) return t('error.network');
    const key = `error.${p.error ?? ''}`;
    if (Object.hasOwn(catalogue, key)) return t(key as MessageKey);
    return t('error.generic', { code: p.code ?? p.error ?? '—' });
  };
  t.channel = (channel) => looksOfChannel(channel)?.payerNames[lang] ?? channel;
  return t;
}

/** The device's language tags, wherever this build runs. */
function deviceTags(): Array<string | undefined> {
  if (process.env.TARO_ENV === 'h5') {
    const nav = typeof navigator === 'undefined' ? undefined : navigator;
    return [nav?.language, ...(nav?.languages ?? [])];
  }
  try {
    const info = (Taro as unknown as { getAppBaseInfo?: () => { language?: string } }).getAppBaseInfo?.();
    if (info?.language) return [info.language];
    return [Taro.getSystemInfoSync().language];
  } catch {
    return [];
  }
}

/** `?lang=` of the H5 page, before or after the `#`. */
function urlLang(): string | null {
  if (process.env.TARO_ENV !== 'h5' || typeof window === 'undefined') return null;
  const { search, hash } = window.location;
  const inHash = hash.indexOf('?');
  return new URLSearchParams(search).get('lang') ?? (inHash >= 0 ? new URLSearchParams(hash.slice(inHash + 1)).get('lang') : null);
}

export function pickLang(options: Record<string, string | undefined> = {}): Lang {
  return explicitLang(options.lang) ?? explicitLang(urlLang()) ?? deviceLang(deviceTags());
}

/** Tells the browser the page's language (the right CJK font) and sets the title. */
export function applyLang(t: Translator, title: MessageKey = 'nav.title'): void {
  if (process.env.TARO_ENV === 'h5' && typeof document !== 'undefined') document.documentElement.lang = t.lang;
  try {
    void Taro.setNavigationBarTitle({ title: t(title) })?.catch?.(() => undefined);
  } catch {
    // Not available here (a test, an old base library): the static title stays.
  }
}

/** Local date and time, the same in both languages: `2025-01-31 14:03`. */
export function localTime(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}
