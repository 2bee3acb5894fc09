import type { KeypadKey } from '../state/amount-input';
import { useT } from '../i18n/use-t';

const KEYS: KeypadKey[] = ['7', '8', '9', '4', '5', '6', '1', '2', '3', '.', '0', 'back'];

export function Keypad({ onKey }: { onKey: (key: KeypadKey) => void }) {
  const t = useT();
  return (
    <div className="keypad" role="group" aria-label={t('keypad.label')}>
      {KEYS.map((key) => (
        <button
          key={key}
          type="button"
          className="key"
          data-testid={`key-${key}`}
          aria-label={key === 'back' ? t('keypad.back') : key}
          onClick={() => onKey(key)}
        >
          {key === 'back' ? '⌫' : key}
        </button>
      ))}
    </div>
  );
}
