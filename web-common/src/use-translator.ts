/** The translator of the language on screen; components re-render when it is switched. */
import { useMemo } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import type { Lang } from '@kit/shared/i18n';
import type { LangState } from './i18n';
import { useStore } from './use-store';

export function useTranslator<T>(lang: StoreApi<LangState>, translator: (lang: Lang) => T): T {
  const current = useStore(lang, (s) => s.lang);
  return useMemo(() => translator(current), [translator, current]);
}
