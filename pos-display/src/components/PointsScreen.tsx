/** Points mode: balance and the deduction code, refreshed every 5 s with a visible 20 s countdown. */
import { useEffect, type FormEvent } from 'react';
import { usePosApp } from '../state/app';
import { useStore } from '../state/use-store';
import { secondsLeft } from '../state/points-store';
import { QrCode } from './QrCode';

export function PointsScreen() {
  const { points } = usePosApp();
  const phase = useStore(points, (s) => s.phase);
  const form = useStore(points, (s) => s.form);
  const formError = useStore(points, (s) => s.formError);
  const balance = useStore(points, (s) => s.balance);
  const startBalance = useStore(points, (s) => s.startBalance);
  const code = useStore(points, (s) => s.code);
  const now = useStore(points, (s) => s.now);
  const network = useStore(points, (s) => s.network);
  const message = useStore(points, (s) => s.message);
  const session = useStore(points, (s) => s.session);

  // Leaving the screen stops the refresh and the countdown.
  useEffect(() => () => points.getState().stop(), [points]);

  const start = (e: FormEvent) => {
    e.preventDefault();
    void points.getState().start();
  };

  if (phase === 'running' || (phase === 'starting' && session)) {
    const left = secondsLeft(code, now);
    return (
      <main className="points points-running">
        <section className="pay-code">
          {code && left > 0 ? (
            <QrCode content={code.content} testId="points-qr" label="Points deduction code" />
          ) : (
            <div className="qr qr-expired" data-testid="points-qr-expired">
              {code ? 'Code expired — getting a new one…' : 'Getting the code…'}
            </div>
          )}
          <div className={`countdown${left <= 5 ? ' low' : ''}`} data-testid="points-countdown" data-seconds={left} data-serial={code?.serial ?? 0}>
            {code ? `Valid for ${left} s` : ''}
          </div>
        </section>
        <section className="pay-info">
          <div className="merchant-name">Points payment</div>
          <div className="points-who">
            User <b>{session?.userId}</b>, point type <b>{session?.tokenId}</b>
          </div>
          <div className="points-balance-label">Balance</div>
          <div className="points-balance" data-testid="points-balance">
            {balance ?? '—'} <span className="unit">points</span>
          </div>
          <p className="message hint">Up to {session?.maxAmount} points can be deducted with this code. A new code appears every 5 s.</p>
          {network && (
            <p className="message warn" role="alert" data-testid="points-network">
              {network}
            </p>
          )}
          <div className="row">
            <button type="button" className="secondary big" data-testid="points-stop" onClick={() => points.getState().stop()}>
              Stop
            </button>
          </div>
        </section>
      </main>
    );
  }

  if (phase === 'done' || phase === 'ended') {
    return (
      <main className="points">
        <div className="card">
          {phase === 'done' ? (
            <>
              <h1 data-testid="points-done">Points deducted</h1>
              <p className="big-text">
                Balance {startBalance} → <b>{balance}</b>
              </p>
            </>
          ) : (
            <>
              <h1>The points code stopped</h1>
              <p className="message error" role="alert" data-testid="points-ended">
                {message}
              </p>
            </>
          )}
          <div className="row">
            <button type="button" className="primary big" onClick={() => points.getState().stop()}>
              Next customer
            </button>
          </div>
        </div>
      </main>
    );
  }

  return (
    <main className="points">
      <form className="card points-form" onSubmit={start}>
        <h1>Pay with points</h1>
        <label>
          Customer user id
          <input data-testid="points-user" value={form.userId} onChange={(e) => points.getState().setForm({ userId: e.target.value })} autoComplete="off" />
        </label>
        <label>
          Point type
          <input data-testid="points-token" value={form.tokenId} onChange={(e) => points.getState().setForm({ tokenId: e.target.value })} autoComplete="off" />
        </label>
        <label>
          Issuing app <span className="hint">(leave empty for this shop’s app)</span>
          <input data-testid="points-token-app" value={form.tokenAppId} onChange={(e) => points.getState().setForm({ tokenAppId: e.target.value })} autoComplete="off" />
        </label>
        <label>
          Points to deduct at most
          <input data-testid="points-max" inputMode="decimal" value={form.maxAmount} onChange={(e) => points.getState().setForm({ maxAmount: e.target.value })} autoComplete="off" />
        </label>
        {balance !== null && (
          <p className="message hint" data-testid="points-form-balance">
            Balance: {balance} points
          </p>
        )}
        {formError && (
          <p className="message error" role="alert" data-testid="points-error">
            {formError}
          </p>
        )}
        <div className="row">
          <button type="button" className="secondary big" data-testid="points-check" onClick={() => void points.getState().checkBalance()}>
            Check balance
          </button>
          <button type="submit" className="primary big" data-testid="points-start" disabled={phase === 'starting'}>
            {phase === 'starting' ? 'Starting…' : 'Show deduction code'}
          </button>
        </div>
      </form>
    </main>
  );
}
