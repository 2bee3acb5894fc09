/** The catalogue keys the shared components read: every front end's `messages.ts` has them. */
import type { Lang } from '@kit/shared/i18n';

export type LangKey = 'lang.label' | `lang.${Lang}`;
export type LoginKey = 'login.title' | 'login.user' | 'login.userPlaceholder' | 'login.password' | 'login.submit' | 'login.busy';
