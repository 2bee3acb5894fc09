/** 中文 | EN: switches every text on screen at once, and is remembered in this browser. */
import { LANGS } from '@kit/shared/i18n';
import { usePosApp } from '../state/app';
import { useT } from '../i18n/use-t';

export function LangSwitch() {
  const { lang } = usePosApp();
  const t = useT();
  return (
    <div className="lang-switch" role="group" aria-label={t('lang.label')} data-testid="lang-switch">
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
