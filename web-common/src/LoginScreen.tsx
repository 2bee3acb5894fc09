/** The login of a front end's router: merchant id and password, the reason it shows, the language switch. */
import { useState, type FormEvent, type ReactNode } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import { useStore } from './use-store';
import type { Msg } from './i18n';
import type { SessionState } from './session-store';
import type { LoginKey } from './words';

export interface LoginScreenProps<S, K extends string> {
  session: StoreApi<SessionState<S, Msg<K>>>;
  /** The front end's translator (its catalogue has the `login.*` keys). */
  t: (text: K | LoginKey | Msg<K>) => string;
  langSwitch: ReactNode;
  /** A line under the title (the console says whom it is for). */
  lead?: string;
  /** The test ids of the user field, the password field, the message and the button. */
  testIds: { user: string; pw: string; message: string; submit: string };
  submitClassName: string;
}

export function LoginScreen<S, K extends string>({ session, t, langSwitch, lead, testIds, submitClassName }: LoginScreenProps<S, K>) {
  const busy = useStore(session, (s) => s.busy);
  const message = useStore(session, (s) => s.message);
  const [userId, setUserId] = useState('');
  const [pw, setPw] = useState('');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (userId.trim() && pw) void session.getState().login(userId, pw);
  };

  return (
    <main className="login">
      <div className="login-lang">{langSwitch}</div>
      <form className="card login-card" onSubmit={submit}>
        <h1>{t('login.title')}</h1>
        {lead && <p className="muted">{lead}</p>}
        <label>
          {t('login.user')}
          <input
            data-testid={testIds.user}
            value={userId}
            onChange={(e) => setUserId(e.target.value)}
            autoComplete="username"
            placeholder={t('login.userPlaceholder')}
            autoFocus
          />
        </label>
        <label>
          {t('login.password')}
          <input data-testid={testIds.pw} type="password" value={pw} onChange={(e) => setPw(e.target.value)} autoComplete="current-password" />
        </label>
        {message && (
          <p className="message error" role="alert" data-testid={testIds.message}>
            {t(message)}
          </p>
        )}
        <button type="submit" className={submitClassName} data-testid={testIds.submit} disabled={busy || !userId.trim() || !pw}>
          {busy ? t('login.busy') : t('login.submit')}
        </button>
      </form>
    </main>
  );
}
