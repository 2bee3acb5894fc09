import { useTranslator } from '@kit/web-common/use-translator';
import { usePosApp } from '../state/app';
import { translator, type Translator } from './i18n';

/** The translator of the language on screen; components re-render when the cashier switches. */
export function useT(): Translator {
  return useTranslator(usePosApp().lang, translator);
}
