import { useState, type FormEvent } from 'react';
import { usePosApp } from '../state/app';
import { useStore } from '../state/use-store';
import { useT } from '../i18n/use-t';
import { LangSwitch } from './LangSwitch';

export function LoginScreen() {
  const { session } = usePosApp();
  const busy = useStore(session, (s) => s.busy);
  const message = useStore(session, (s) => s.message);
  const t = useT();
  const [userId, setUserId] = useState('');
  const [pw, setPw] = useState('');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!userId.trim() || !pw) return;
    void session.getState().login(userId, pw);
  };

  return (
    <main className="login">
      <div className="login-lang">
        <LangSwitch />
      </div>
      <form className="card login-card" onSubmit={submit}>
        <h1>{t('login.title')}</h1>
        <label>
          {t('login.user')}
          <input
            data-testid="login-user"
            value={userId}
            onChange={(e) => setUserId(e.target.value)}
            autoComplete="username"
            placeholder={t('login.userPlaceholder')}
            autoFocus
          />
        </label>
        <label>
          {t('login.password')}
          <input data-testid="login-pw" type="password" value={pw} onChange={(e) => setPw(e.target.value)} autoComplete="current-password" />
        </label>
        {message && (
          <p className="message error" role="alert" data-testid="login-message">
            {t(message)}
          </p>
        )}
        <button type="submit" className="primary big" data-testid="login-submit" disabled={busy || !userId.trim() || !pw}>
          {busy ? t('login.busy') : t('login.submit')}
        </button>
      </form>
    </main>
  );
}
