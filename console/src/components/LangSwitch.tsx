/** The console's 中文 | EN switch (the shared one, on the console's language store). */
import { LangSwitch as SharedLangSwitch } from '@kit/web-common/LangSwitch';
import { useConsoleApp } from '../state/app';
import { useT } from '../i18n/use-t';

export function LangSwitch() {
  return <SharedLangSwitch lang={useConsoleApp().lang} t={useT()} />;
}
