/** 中文 | EN: switches every text on screen at once, and is remembered in this browser. */
import { LANGS, type Lang } from '@kit/shared/i18n';
import type { StoreApi } from 'zustand/vanilla';
import type { LangState } from './i18n';
import type { LangKey } from './words';

export interface LangSwitchProps {
  lang: StoreApi<LangState>;
  /** The front end's translator: the language on screen and the switch's words. */
  t: { lang: Lang; (key: LangKey): string };
  testId?: string;
}

export function LangSwitch({ lang, t, testId }: LangSwitchProps) {
  return (
    <div className="lang-switch" role="group" aria-label={t('lang.label')} data-testid={testId}>
      {LANGS.map((l) => (
        <button
          key={l}
          type="button"
          lang={l}
          data-testid={`lang-${l}`}
          className={t.lang === l ? 'on' : ''}
          aria-pressed={t.lang === l}
          onClick={() => lang.getState().choose(l)}
        >
          {t(`lang.${l}`)}
        </button>
      ))}
    </div>
  );
}
