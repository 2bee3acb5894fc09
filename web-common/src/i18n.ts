/**
 * The language machinery of the browser front ends (each has its own catalogue, `messages.ts`):
 * `?lang=zh-CN|en` in the page URL wins, then the choice made with the header switch (kept in this
 * browser), then the browser's own language (`zh*` → Chinese, otherwise English). Stores keep
 * messages as keys (`Msg`), so switching the language redraws every text on screen, errors included.
 */
import { createStore } from 'zustand/vanilla';
import { deviceLang, explicitLang, interpolate, type Lang } from '@kit/shared/i18n';

export type { Lang };

/** A text to show: a catalogue key and its values (which may be texts themselves). */
export interface Msg<K extends string> {
  key: K;
  params?: Record<string, string | number | Msg<K>>;
}

export const msg = <K extends string>(key: K, params?: Msg<K>['params']): Msg<K> => (params ? { key, params } : { key });

/** A front end's catalogue: every key in every language (English is the fallback all the same). */
export type Catalogues<K extends string> = Record<Lang, Record<K, string>>;

/** Whether `key` is in the catalogue (a service's `error` id turned into `error.<id>`, say). */
export const hasKey = <K extends string>(messages: Catalogues<K>, key: string): key is K => Object.hasOwn(messages.en, key);

/** Renders a key or a `Msg` in `lang`, its values rendered first (a missing text falls back to English, then to the key). */
export function translate<K extends string>(messages: Catalogues<K>, lang: Lang): (text: K | Msg<K>, params?: Msg<K>['params']) => string {
  const catalogue = messages[lang];
  const t = (text: K | Msg<K>, params?: Msg<K>['params']): string => {
    const m = typeof text === 'string' ? { key: text, params } : text;
    const values: Record<string, string | number> = {};
    for (const [name, v] of Object.entries(m.params ?? {})) values[name] = typeof v === 'object' ? t(v) : v;
    return interpolate(catalogue[m.key] ?? messages.en[m.key] ?? m.key, values);
  };
  return t;
}

export interface LangState {
  lang: Lang;
  /** The header switch: remembered in this browser, and a `?lang=` in the URL no longer overrides it. */
  choose(lang: Lang): void;
}

/** The language a page opens in; `savedKey` is the front end's own localStorage entry. */
export function initialLang(win: Window, savedKey: string): Lang {
  const fromUrl = explicitLang(new URLSearchParams(win.location.search).get('lang'));
  if (fromUrl) return fromUrl;
  let saved: string | null = null;
  try {
    saved = win.localStorage.getItem(savedKey);
  } catch {
    // Storage may be unavailable (private mode); the browser language decides then.
  }
  return explicitLang(saved) ?? deviceLang([win.navigator.language, ...(win.navigator.languages ?? [])]);
}

/** The language on screen; keeps `<html lang>` and the page title (`titleOf`) in step with it. */
export function createLangStore(win: Window, opts: { savedKey: string; titleOf: (lang: Lang) => string }) {
  const store = createStore<LangState>()((set) => ({
    lang: initialLang(win, opts.savedKey),
    choose(lang) {
      try {
        win.localStorage.setItem(opts.savedKey, lang);
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
    win.document.title = opts.titleOf(lang);
  };
  apply(store.getState().lang);
  store.subscribe((s) => apply(s.lang));
  return store;
}
