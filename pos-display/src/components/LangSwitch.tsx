/** The display's 中文 | EN switch (the shared one, on the display's language store). */
import { LangSwitch as SharedLangSwitch } from '@kit/web-common/LangSwitch';
import { usePosApp } from '../state/app';
import { useT } from '../i18n/use-t';

export function LangSwitch() {
  return <SharedLangSwitch lang={usePosApp().lang} t={useT()} testId="lang-switch" />;
}
