/**
 * The console's language: `?lang=zh-CN|en` in the page URL wins, then the choice made with the
 * header switch (kept in this browser), then the browser's own language. Stores keep messages as
 * keys (`Msg`), so switching the language redraws every text, errors included.
 */
import { describeServiceFailure } from '@kit/web-common/failure';
import { createLangStore as createLangStoreOf, msg as msgOf, translate, hasKey, type Msg as MsgOf } from '@kit/web-common/i18n';
import type { Lang } from '@kit/shared/i18n';
import { formatMoneyText } from '@kit/shared/money-format';
import { channelWords } from '@kit/web-common/wallets';
import { MESSAGES, type MessageKey } from './messages';

export type { Lang, MessageKey };
export type { LangState } from '@kit/web-common/i18n';

export type Msg = MsgOf<MessageKey>;

export const msg = (key: MessageKey, params?: Msg['params']): Msg => msgOf(key, params);

export const isMessageKey = (key: string): key is MessageKey => hasKey(MESSAGES, key);

export interface Translator {
  lang: Lang;
  (text: MessageKey | Msg, params?: Msg['params']): string;
  /** A money decimal from the wire, the shared way: `¥1,234.50`. */
  money(text: string): string;
  /** A time from the wire in this browser's zone: `2026-01-31 09:05:07`. */
  time(iso: string | null | undefined): string;
  /** A calendar day (`YYYY-MM-DD`) the language's way: `Fri, Nov 27, 2026`, `2026年11月27日周五`. */
  date(day: string): string;
  /** A counted text: the key's `.one` or `.other` form by the language's plural rule (Chinese has one form). */
  count(key: CountedKey, count: number, params?: Msg['params']): string;
  /** A word from the wire (a state, a channel, a bill's status) in this language; one the catalogue (or, for a channel, its wallet) does not know as it came. */
  word(group: WordGroup, word: string): string;
}

/** The keys that come in `.one` / `.other` forms. */
export type CountedKey = MessageKey extends infer K ? (K extends `${infer B}.one` ? B : never) : never;
/** The groups of wire words the catalogue names (`<group>.<word>`). */
export type WordGroup = 'refund' | 'split' | 'share' | 'paidVia' | 'channel' | 'billStatus' | 'billRefund' | 'status' | 'tradeType' | 'coState';

/**
 * A counted text as a message: English says "1 order", "0 orders", "2 orders"; Chinese has no plural
 * (its `.one` and `.other` texts are the same), so the English rule picks the form for both.
 */
export const counted = (key: CountedKey, count: number, params?: Msg['params']): Msg =>
  msg(`${key}.${count === 1 ? 'one' : 'other'}` as MessageKey, { count, ...params });

export function formatDay(lang: Lang, day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(d.getTime())) return day;
  const opts: Intl.DateTimeFormatOptions = { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric', weekday: 'short' };
  return new Intl.DateTimeFormat(lang === 'zh-CN' ? 'zh-CN' : 'en-US', opts).format(d);
}

export function translator(lang: Lang): Translator {
  const t = translate(MESSAGES, lang) as Translator;
  t.lang = lang;
  t.money = (text) => formatMoneyText(text);
  t.time = (iso) => localTime(iso);
  t.date = (day) => formatDay(lang, day);
  t.count = (key, count, params) => t(counted(key, count, params));
  t.word = (group, word) => {
    // A channel is named as its wallet declares it (`@kit/shared/wallets/looks`): as one of the merchant's accounts.
    if (group === 'channel') return channelWords(lang, word, 'accountNames');
    const key = `${group}.${word}`;
    return isMessageKey(key) ? t(key) : word;
  };
  return t;
}

export function localTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Failures in words: the catalogue's text for a service `error` id, or the generic text with the code. */
export const describeFailure = (e: unknown): Msg => describeServiceFailure(MESSAGES, e) ?? msg('error.generic', { code: 'CONSOLE' });

export const createLangStore = (win: Window = window) =>
  createLangStoreOf(win, { savedKey: 'merchant-console-lang', titleOf: (lang) => MESSAGES[lang]['app.title'] });
