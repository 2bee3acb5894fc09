/**
 * The payer's payment code at the counter (7.4): what the cashier's scan of it did. One code at a
 * time; the order's own wait loop (`sale-store.ts`) shows it paid once the payer has confirmed.
 */
import { createStore } from 'zustand/vanilla';
import type { PaymentChannel } from '@kit/shared';
import type { PosApi } from '../api/client';
import { describeFailure } from '../i18n/failure';
import type { Msg } from '../i18n/i18n';

/** What the screen says: nothing yet, asking the wallet, the payer confirming, paid, refused, cancelled, or a failure. */
export type CodePhase = 'idle' | 'asking' | 'waiting' | 'paid' | 'refused' | 'cancelled' | 'failed';

export interface CodePayState {
  prepayId: string | null;
  phase: CodePhase;
  channel: PaymentChannel | null;
  /** Unix ms until which the payer may confirm (`waiting`). */
  confirmUntil: number | null;
  /** Why the wallet refused: the code (refresh it), the payer (another card or way), or other; and its own code. */
  refusal: { reason: 'code' | 'payer' | 'other'; platformCode: string } | null;
  error: Msg | null;
  /** Charges a code read by the scanner, the camera or the cashier's fingers. */
  pay(prepayId: string, authCode: string): Promise<void>;
  /** Back to scanning (a new code, or another order). */
  clear(prepayId?: string): void;
}

export function createCodePayStore(api: PosApi) {
  return createStore<CodePayState>()((set, get) => ({
    prepayId: null,
    phase: 'idle',
    channel: null,
    confirmUntil: null,
    refusal: null,
    error: null,
    async pay(prepayId, authCode) {
      if (get().phase === 'asking') return;
      set({ prepayId, phase: 'asking', channel: null, confirmUntil: null, refusal: null, error: null });
      const mine = () => get().prepayId === prepayId;
      try {
        const { payment } = await api.payCode(prepayId, authCode);
        if (!mine()) return;
        if (payment.result === 'refused') set({ phase: 'refused', refusal: { reason: payment.reason, platformCode: payment.platformCode } });
        else if (payment.result === 'cancelled') set({ phase: 'cancelled' });
        else set({ phase: payment.result, channel: payment.channel, confirmUntil: payment.confirmUntil ? Date.parse(payment.confirmUntil) : null });
      } catch (e) {
        if (mine()) set({ phase: 'failed', error: describeFailure(e) });
      }
    },
    clear(prepayId) {
      set({ prepayId: prepayId ?? null, phase: 'idle', channel: null, confirmUntil: null, refusal: null, error: null });
    },
  }));
}
