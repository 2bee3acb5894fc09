/**
 * Points mode: balance and the deduction code, replaced every 5 s, counting down to the next one
 * (each stays valid 20 s; when a refresh fails, the code on screen's own validity is counted down).
 * The cashier scans the customer's member code (a scanner fills the customer field and ends with
 * Enter, which reads the balance) and enters the points; the shop's point type is remembered.
 */
import { useEffect, useRef, type FormEvent } from 'react';
import { usePosApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { maxAboveBalance, secondsLeft, secondsToNext } from '../state/points-store';
import { useT } from '../i18n/use-t';
import { Money } from '@kit/web-common/Money';
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
  const t = useT();
  const maxRef = useRef<HTMLInputElement>(null);

  // Leaving the screen stops the refresh and the countdown.
  useEffect(() => () => points.getState().stop(), [points]);

  const start = (e: FormEvent) => {
    e.preventDefault();
    void points.getState().start();
  };

  if (phase === 'running' || (phase === 'starting' && session)) {
    const left = secondsLeft(code, now);
    // What the screen says happens every 5 s is what it counts down; without fresh codes, how long this one still works.
    const stale = network !== null;
    const shown = stale ? left : secondsToNext(code, now);
    const over = session !== null && maxAboveBalance(session.maxAmount, balance);
    return (
      <main className="points points-running">
        <section className="pay-code">
          {code && left > 0 ? (
            <QrCode content={code.content} testId="points-qr" label={t('points.codeLabel')} />
          ) : (
            <div className="qr qr-expired" data-testid="points-qr-expired">
              {code ? t('points.codeExpired') : t('points.gettingCode')}
            </div>
          )}
          <div
            className={`countdown${stale && left <= 5 ? ' low' : ''}`}
            data-testid="points-countdown"
            data-seconds={shown}
            data-valid={left}
            data-kind={stale ? 'valid' : 'next'}
            data-serial={code?.serial ?? 0}
          >
            {code ? t(stale ? 'points.validFor' : 'points.nextIn', { seconds: shown }) : ''}
          </div>
        </section>
        <section className="pay-info">
          <div className="merchant-name">{t('points.heading')}</div>
          <dl className="points-who">
            <dt>{t('points.userLabel')}</dt>
            <dd data-testid="points-who-user">{session?.userId}</dd>
            <dt>{t('points.tokenLabel')}</dt>
            <dd data-testid="points-who-token">{session?.tokenId}</dd>
          </dl>
          <div className="points-balance-label">{t('points.balanceLabel')}</div>
          <div className="points-balance-box">
            {balance === null ? (
              <span className="points-balance">—</span>
            ) : (
              <Money value={balance} lang={t.lang} kind="points" className="points-balance" testId="points-balance" fit />
            )}
          </div>
          <p className="message hint">{t('points.upTo', { max: t.points(session?.maxAmount ?? '0') })}</p>
          {over && balance !== null && (
            <p className="message warn" data-testid="points-over-balance">
              {t('points.overBalance', { balance: t.points(balance) })}
            </p>
          )}
          {network && (
            <p className="message warn" role="alert" data-testid="points-network">
              {t(network)}
            </p>
          )}
          <div className="row">
            <button type="button" className="secondary big" data-testid="points-stop" onClick={() => points.getState().stop()}>
              {t('points.stop')}
            </button>
          </div>
        </section>
      </main>
    );
  }

  if (phase === 'done' || phase === 'ended') {
    return (
      <main className="points">
        <div className="card points-result">
          {phase === 'done' ? (
            <>
              <h1 data-testid="points-done">{t('points.done')}</h1>
              <dl className="points-after">
                <dt>{t('points.balanceBefore')}</dt>
                <dd>{startBalance !== null && <Money value={startBalance} lang={t.lang} kind="points" className="before" testId="points-before" fit />}</dd>
                <dt>{t('points.balanceNow')}</dt>
                <dd>{balance !== null && <Money value={balance} lang={t.lang} kind="points" className="after" testId="points-after" fit />}</dd>
              </dl>
            </>
          ) : (
            <>
              <h1>{t('points.stopped')}</h1>
              <p className="message error" role="alert" data-testid="points-ended">
                {message && t(message)}
              </p>
            </>
          )}
          <div className="row">
            <button type="button" className="primary big" data-testid="points-next" onClick={() => points.getState().stop()}>
              {t('points.next')}
            </button>
          </div>
        </div>
      </main>
    );
  }

  const over = maxAboveBalance(form.maxAmount, balance);
  return (
    <main className="points">
      <form className="card points-form" onSubmit={start}>
        <h1>{t('points.title')}</h1>
        <div className="fields">
          <label>
            {t('points.user')}
            <input
              data-testid="points-user"
              value={form.userId}
              placeholder={t('points.userHint')}
              autoFocus
              onChange={(e) => points.getState().setForm({ userId: e.target.value })}
              onKeyDown={(e) => {
                // A scanner ends the member code with Enter: read the balance, then the cashier enters the points.
                if (e.key !== 'Enter') return;
                e.preventDefault();
                void points.getState().checkBalance();
                maxRef.current?.focus();
              }}
              autoComplete="off"
            />
          </label>
          <label>
            {t('points.max')}
            <input
              ref={maxRef}
              data-testid="points-max"
              inputMode="decimal"
              value={form.maxAmount}
              onChange={(e) => points.getState().setForm({ maxAmount: e.target.value })}
              autoComplete="off"
            />
          </label>
          <label>
            {t('points.token')}
            <input
              data-testid="points-token"
              value={form.tokenId}
              onChange={(e) => points.getState().setForm({ tokenId: e.target.value })}
              autoComplete="off"
            />
          </label>
          <label>
            {t('points.tokenApp')}
            <input
              data-testid="points-token-app"
              value={form.tokenAppId}
              placeholder={t('points.tokenAppHint')}
              onChange={(e) => points.getState().setForm({ tokenAppId: e.target.value })}
              autoComplete="off"
            />
          </label>
        </div>
        {balance !== null && (
          <p className="message hint" data-testid="points-form-balance">
            {t('points.balance', { amount: t.points(balance) })}
          </p>
        )}
        {over && balance !== null && (
          <p className="message warn" data-testid="points-over-balance">
            {t('points.overBalance', { balance: t.points(balance) })}
          </p>
        )}
        {formError && (
          <p className="message error" role="alert" data-testid="points-error">
            {t(formError)}
          </p>
        )}
        <div className="row">
          <button type="button" className="secondary big" data-testid="points-check" onClick={() => void points.getState().checkBalance()}>
            {t('points.check')}
          </button>
          <button type="submit" className="primary big" data-testid="points-start" disabled={phase === 'starting'}>
            {phase === 'starting' ? t('points.starting') : t('points.start')}
          </button>
        </div>
      </form>
    </main>
  );
}
