import { useTranslator } from '@kit/web-common/use-translator';
import { useConsoleApp } from '../state/app';
import { translator, type Translator } from './i18n';

/** The translator of the language on screen; components re-render when it is switched. */
export function useT(): Translator {
  return useTranslator(useConsoleApp().lang, translator);
}
