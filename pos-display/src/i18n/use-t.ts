import { useMemo } from 'react';
import { usePosApp } from '../state/app';
import { useStore } from '../state/use-store';
import { translator, type Translator } from './i18n';

/** The translator of the language on screen; components re-render when the cashier switches. */
export function useT(): Translator {
  const { lang } = usePosApp();
  const current = useStore(lang, (s) => s.lang);
  return useMemo(() => translator(current), [current]);
}
