/**
 * "Scan the payer's code" (7.4): a field that takes what a USB or Bluetooth scanner types (the
 * digits, then Enter, fast) or the cashier's fingers, and the camera wherever the device has one
 * (`CodeCamera`). Says what is happening: asking the wallet, the payer confirming on
 * the phone with the time left, paid (which wallet), refused (why, and what to do), cancelled.
 */
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { usePosApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { useT } from '../i18n/use-t';
import { CodeCamera } from './CodeCamera';

/** A payment code as scanners read it (the wallets' own ranges are the service's to judge). */
const PAYMENT_CODE = /^\d{16,24}$/;
const isPaymentCode = (code: string) => PAYMENT_CODE.test(code);

export function PayerCode({ prepayId }: { prepayId: string }) {
  const { codePay } = usePosApp();
  const state = useStore(codePay, (s) => s);
  const t = useT();
  const [text, setText] = useState('');
  const [invalid, setInvalid] = useState(false);
  // While the camera films, its own hint replaces the scanner's.
  const [filming, setFilming] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const mine = state.prepayId === prepayId;
  const phase = mine ? state.phase : 'idle';

  useEffect(() => {
    if (!mine) codePay.getState().clear(prepayId);
    input.current?.focus();
  }, [codePay, prepayId, mine]);

  const charge = useCallback(
    (raw: string) => {
      const code = raw.replace(/[\s-]/g, '');
      if (!PAYMENT_CODE.test(code)) return setInvalid(true);
      setInvalid(false);
      setText('');
      void codePay.getState().pay(prepayId, code);
    },
    [codePay, prepayId],
  );
  // The camera is started for a fresh code: what the last one did has been acted on, and gives the picture its room.
  const filmingChanged = useCallback(
    (on: boolean) => {
      setFilming(on);
      if (!on) return;
      setInvalid(false);
      codePay.getState().clear(prepayId);
    },
    [codePay, prepayId],
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    charge(text);
  };
  const busy = phase === 'asking' || phase === 'waiting';

  return (
    <div className="payer-code" data-testid="payer-code">
      <form className="payer-code-form" onSubmit={submit}>
        <label htmlFor="payer-code-input">{t('code.label')}</label>
        <div className="payer-code-row">
          <input
            id="payer-code-input"
            ref={input}
            data-testid="payer-code-input"
            inputMode="numeric"
            autoComplete="off"
            spellCheck={false}
            value={text}
            disabled={busy}
            onChange={(e) => {
              setText(e.target.value);
              setInvalid(false);
            }}
          />
          <button type="submit" className="primary" data-testid="payer-code-submit" disabled={busy || !text.trim()}>
            {t('code.submit')}
          </button>
        </div>
      </form>
      {!filming && <p className="scan-hint">{t('code.hint')}</p>}
      <CodeCamera accept={isPaymentCode} onCode={charge} disabled={busy} onFilming={filmingChanged} />
      {invalid && (
        <p className="message error" role="alert" data-testid="payer-code-message" data-phase="invalid">
          {t('code.invalid')}
        </p>
      )}
      {!invalid && phase !== 'idle' && <Status />}
    </div>
  );
}

/** What the last code did, in words a cashier acts on. */
function Status() {
  const { codePay } = usePosApp();
  const s = useStore(codePay, (x) => x);
  const t = useT();
  const seconds = useSecondsLeft(s.phase === 'waiting' ? s.confirmUntil : null);
  const text =
    s.phase === 'asking'
      ? t('code.asking')
      : s.phase === 'waiting'
        ? seconds > 0
          ? t('code.waiting', { seconds })
          : t('code.waitingOver')
        : s.phase === 'paid' && s.channel
          ? t.channel(s.channel, 'paidWith')
          : s.phase === 'refused' && s.refusal
            ? t(`code.refused.${s.refusal.reason}`, { code: s.refusal.platformCode })
            : s.phase === 'cancelled'
              ? t('code.cancelled')
              : s.error
                ? t(s.error)
                : '';
  const tone = s.phase === 'paid' ? 'ok' : s.phase === 'asking' || (s.phase === 'waiting' && seconds > 0) ? 'hint' : 'error';
  return (
    <p className={`message ${tone}`} role="status" aria-live="assertive" data-testid="payer-code-message" data-phase={s.phase}>
      {text}
      {(s.phase === 'asking' || (s.phase === 'waiting' && seconds > 0)) && <span className="dots" aria-hidden="true" />}
    </p>
  );
}

/** Whole seconds left until `until` (Unix ms), counting down on the page's clock. */
function useSecondsLeft(until: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === null) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [until]);
  return until === null ? 0 : Math.max(0, Math.ceil((until - now) / 1000));
}
