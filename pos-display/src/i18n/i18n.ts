/**
 * The display's language: `?lang=zh-CN|en` in the page URL wins, then the cashier's choice with
 * the header switch (kept in this browser), then the browser's own language (`zh*` → Chinese,
 * otherwise English). Stores keep messages as keys (`Msg`), so switching the language redraws
 * every text on screen, errors included.
 */
import { createStore } from 'zustand/vanilla';
import { deviceLang, explicitLang, interpolate, type Lang } from '@kit/shared/i18n';
import { formatMoneyText, formatPointsText, groupDecimalInput } from '@kit/shared/money-format';
import { MESSAGES, type MessageKey } from './messages';

export type { Lang, MessageKey };

/** A text to show: a catalogue key and its values (which may be texts themselves). */
export interface Msg {
  key: MessageKey;
  params?: Record<string, string | number | Msg>;
}

export const msg = (key: MessageKey, params?: Msg['params']): Msg => (params ? { key, params } : { key });

export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(MESSAGES.en, key);
}

export interface Translator {
  lang: Lang;
  (text: MessageKey | Msg, params?: Msg['params']): string;
  /** A money decimal from the wire, the shared way: `¥1,234.50`. */
  money(text: string): string;
  /** A points decimal from the wire with its unit: `1,234.50000 points` / `1,234.50000积分`. */
  points(text: string): string;
  /** An amount being typed, grouped: `1,000,000.5`. */
  typing(text: string): string;
}

export function translator(lang: Lang): Translator {
  const catalogue = MESSAGES[lang];
  const t = ((text: MessageKey | Msg, params?: Msg['params']): string => {
    const m = typeof text === 'string' ? { key: text, params } : text;
    const values: Record<string, string | number> = {};
    for (const [name, v] of Object.entries(m.params ?? {})) values[name] = typeof v === 'object' ? t(v) : v;
    return interpolate(catalogue[m.key] ?? MESSAGES.en[m.key] ?? m.key, values);
  }) as Translator;
  t.lang = lang;
  t.money = (text) => formatMoneyText(text);
  t.points = (text) => formatPointsText(text, lang);
  t.typing = (text) => groupDecimalInput(text);
  return t;
}

const SAVED = 'pos-display-lang';

export interface LangState {
  lang: Lang;
  /** The header switch: remembered in this browser, and a `?lang=` in the URL no longer overrides it. */
  choose(lang: Lang): void;
}

export function initialLang(win: Window): Lang {
  const fromUrl = explicitLang(new URLSearchParams(win.location.search).get('lang'));
  if (fromUrl) return fromUrl;
  let saved: string | null = null;
  try {
    saved = win.localStorage.getItem(SAVED);
  } catch {
    // Storage may be unavailable (private mode); the browser language decides then.
  }
  return explicitLang(saved) ?? deviceLang([win.navigator.language, ...(win.navigator.languages ?? [])]);
}

export function createLangStore(win: Window = window) {
  const store = createStore<LangState>()((set) => ({
    lang: initialLang(win),
    choose(lang) {
      try {
        win.localStorage.setItem(SAVED, lang);
      } catch {
        // Not remembered; the choice still holds until the page is reloaded.
      }
      const url = new URL(win.location.href);
      if (url.searchParams.has('lang')) {
        url.searchParams.delete('lang');
        win.history.replaceState(win.history.state, '', url.toString());
      }
      set({ lang });
    },
  }));
  const apply = (lang: Lang) => {
    win.document.documentElement.lang = lang;
    win.document.title = MESSAGES[lang]['app.title'];
  };
  apply(store.getState().lang);
  store.subscribe((s) => apply(s.lang));
  return store;
}
