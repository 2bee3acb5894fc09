/**
 * A failure in words a person at the screen can act on: a refusal of the service becomes the
 * catalogue's text for its `error` id (or the generic text with the code to quote), a lost network
 * a plain sentence; never a field path or a developer message.
 */
import { KitApiError, KitNetworkError } from '@kit/shared/errors';
import { hasKey, msg, type Catalogues, type Msg } from './i18n';

/** The keys every front end's catalogue has for failures. */
export type FailureKey = 'error.network' | 'error.login_invalid' | 'error.generic';

/** The catalogue's text for a service `error` id, or the generic text with the code to quote. */
export function serviceError<K extends string>(messages: Catalogues<K | FailureKey>, id: string | undefined, code: string): Msg<K | FailureKey> {
  const key = `error.${id ?? ''}`;
  return hasKey(messages, key) ? msg(key) : msg('error.generic', { code });
}

/** A service's or the network's failure in words; `undefined` for any other error (the front end decides). */
export function describeServiceFailure<K extends string>(messages: Catalogues<K | FailureKey>, e: unknown): Msg<K | FailureKey> | undefined {
  if (e instanceof KitNetworkError) return msg('error.network');
  if (e instanceof KitApiError) {
    // A 401 other than a refused login: the session is gone.
    if (e.httpStatus === 401 && e.error !== 'login_failed') return msg('error.login_invalid');
    return serviceError(messages, e.error, typeof e.body.code === 'string' ? e.body.code : String(e.httpStatus));
  }
  return undefined;
}
