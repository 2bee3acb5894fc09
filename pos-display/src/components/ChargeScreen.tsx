/** Amount entry: keypad (or keyboard), checked with the service's own rule before anything is sent. */
import { useEffect, useRef } from 'react';
import { CURRENCY_SIGN } from '@kit/shared/money-format';
import { usePosApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { checkAmount, type KeypadKey } from '../state/amount-input';
import { useT } from '../i18n/use-t';
import { Keypad } from './Keypad';
import { useFit } from '@kit/web-common/use-fit';

const KEYBOARD: Record<string, KeypadKey> = {
  Backspace: 'back',
  Delete: 'clear',
  Escape: 'clear',
  '.': '.',
  ',': '.',
  '0': '0',
  '1': '1',
  '2': '2',
  '3': '3',
  '4': '4',
  '5': '5',
  '6': '6',
  '7': '7',
  '8': '8',
  '9': '9',
};

export function ChargeScreen() {
  const { sale, route } = usePosApp();
  const text = useStore(sale, (s) => s.amountText);
  const creating = useStore(sale, (s) => s.creating);
  const error = useStore(sale, (s) => s.error);
  const t = useT();
  const check = checkAmount(text);
  const entry = useRef<HTMLOutputElement>(null);
  useFit(entry, true, [text, t.lang]);

  const submit = async () => {
    const id = await sale.getState().submit();
    if (id) route.getState().go({ name: 'pay', prepayId: id });
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === 'Enter') {
        e.preventDefault();
        void submit();
        return;
      }
      const key = KEYBOARD[e.key];
      if (key) {
        e.preventDefault();
        sale.getState().press(key);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  // Nothing typed yet is not a mistake: a calm hint, not an error.
  const tone = check.ok || !check.message ? 'hint' : 'error';
  return (
    <main className="charge">
      <section className="amount-panel">
        <div className="amount-label">{t('charge.label')}</div>
        <div className="amount-entry-box">
          <output ref={entry} className={`amount-entry${text ? '' : ' empty'}`} data-testid="amount-entry" aria-live="polite">
            <span className="currency">{CURRENCY_SIGN}</span>
            {text ? t.typing(text) : '0.00'}
          </output>
        </div>
        <p className={`message ${tone}`} data-testid="amount-message" data-tone={tone} role={tone === 'error' ? 'alert' : undefined}>
          {check.ok ? t('charge.customerPays', { amount: t.money(check.display) }) : t(check.message ?? 'charge.idle')}
        </p>
        {error && (
          <p className="message error" role="alert" data-testid="charge-error">
            {t(error)}
          </p>
        )}
        <div className="charge-actions">
          <button type="button" className="secondary big" onClick={() => sale.getState().press('clear')} data-testid="key-clear" disabled={!text}>
            {t('charge.clear')}
          </button>
          <button type="button" className="primary big" onClick={() => void submit()} data-testid="charge-submit" disabled={!check.ok || creating}>
            {creating ? t('charge.creating') : t('charge.submit')}
          </button>
        </div>
      </section>
      <Keypad onKey={(k) => sale.getState().press(k)} />
    </main>
  );
}
