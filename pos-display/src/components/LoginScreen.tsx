import { useState, type FormEvent } from 'react';
import { usePosApp } from '../state/app';
import { useStore } from '../state/use-store';

export function LoginScreen() {
  const { session } = usePosApp();
  const busy = useStore(session, (s) => s.busy);
  const message = useStore(session, (s) => s.message);
  const [userId, setUserId] = useState('');
  const [pw, setPw] = useState('');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!userId.trim() || !pw) return;
    void session.getState().login(userId, pw);
  };

  return (
    <main className="login">
      <form className="card login-card" onSubmit={submit}>
        <h1>Cashier login</h1>
        <label>
          Sub-merchant id
          <input data-testid="login-user" value={userId} onChange={(e) => setUserId(e.target.value)} autoComplete="username" placeholder="SM…" autoFocus />
        </label>
        <label>
          Password
          <input data-testid="login-pw" type="password" value={pw} onChange={(e) => setPw(e.target.value)} autoComplete="current-password" />
        </label>
        {message && (
          <p className="message error" role="alert" data-testid="login-message">
            {message}
          </p>
        )}
        <button type="submit" className="primary big" data-testid="login-submit" disabled={busy || !userId.trim() || !pw}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  );
}
