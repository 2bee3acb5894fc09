import type { KeypadKey } from '../state/amount-input';

const KEYS: Array<{ key: KeypadKey; label: string }> = [
  { key: '7', label: '7' }, { key: '8', label: '8' }, { key: '9', label: '9' },
  { key: '4', label: '4' }, { key: '5', label: '5' }, { key: '6', label: '6' },
  { key: '1', label: '1' }, { key: '2', label: '2' }, { key: '3', label: '3' },
  { key: '.', label: '.' }, { key: '0', label: '0' }, { key: 'back', label: '⌫' },
];

export function Keypad({ onKey }: { onKey: (key: KeypadKey) => void }) {
  return (
    <div className="keypad" role="group" aria-label="Amount keypad">
      {KEYS.map(({ key, label }) => (
        <button key={key} type="button" className="key" data-testid={`key-${key}`} aria-label={key === 'back' ? 'Delete last digit' : label} onClick={() => onKey(key)}>
          {label}
        </button>
      ))}
    </div>
  );
}
