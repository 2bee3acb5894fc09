/**
 * One sale: the amount on the keypad, the order it became, and the 4.2 long-poll loop that waits
 * for its payment (shared `waitLoop`: immediate re-call, no manual delay, through network errors).
 */
import { createStore } from 'zustand/vanilla';
import { waitLoop } from '@kit/shared/long-poll';
import type { PosOrder } from '@kit/shared/api/pos';
import type { PosApi } from '../api/client';
import { describeFailure } from '../i18n/failure';
import type { Msg } from '../i18n/i18n';
import { checkAmount, pressKey, type KeypadKey } from './amount-input';

/** The code on show: the one for any wallet (first), the mini-program code, the scan-code QR; or the payer's code to scan (7.4). */
export type CodeView = 'anyWallet' | 'miniProgram' | 'scanCode' | 'payerCode';

export interface SaleState {
  amountText: string;
  creating: boolean;
  /** Failure of the last create or load. */
  error: Msg | null;
  order: PosOrder | null;
  loading: boolean;
  view: CodeView;
  waiting: boolean;
  /** Set while the wait loop is retrying after a failure; cleared by the next answer. */
  network: Msg | null;
  press(key: KeypadKey): void;
  setAmount(text: string): void;
  /** Creates the order; resolves with its id (for the route), or null when refused. */
  submit(): Promise<string | null>;
  /** Shows an order (from the URL after a reload, or just created) and waits for its payment. */
  open(prepayId: string): Promise<void>;
  setView(view: CodeView): void;
  /** Stops waiting (leaving the payment screen). */
  stop(): void;
  /** Starts over on the keypad. */
  reset(): void;
}

export function createSaleStore(api: PosApi) {
  let waitCtl: AbortController | null = null;

  const store = createStore<SaleState>()((set, get) => {
    function startWaiting(prepayId: string) {
      waitCtl?.abort();
      const ctl = new AbortController();
      waitCtl = ctl;
      set({ waiting: true, network: null });
      const mine = () => !ctl.signal.aborted && get().order?.prepayId === prepayId;
      waitLoop(() => api.waitOrder(prepayId, ctl.signal), {
        signal: ctl.signal,
        onUpdate: (detail) => {
          if (!mine()) return;
          const order = get().order!;
          set({
            network: null,
            order: {
              ...order,
              status: detail.status,
              paymentTime: detail.paymentTime ?? order.paymentTime,
              paymentChannel: detail.paymentChannel ?? order.paymentChannel,
            },
          });
        },
        onError: (e) => {
          if (mine()) set({ network: describeFailure(e) });
        },
      }).then(
        () => {
          if (mine()) set({ waiting: false });
        },
        (e) => {
          if (!mine()) return;
          // 4xx: the order is unknown to this cashier, or the login is gone (handled by the API hook).
          set({ waiting: false, network: null, error: describeFailure(e) });
        },
      );
    }

    return {
      amountText: '',
      creating: false,
      error: null,
      order: null,
      loading: false,
      view: 'anyWallet',
      waiting: false,
      network: null,
      press(key) {
        set({ amountText: pressKey(get().amountText, key), error: null });
      },
      setAmount(text) {
        set({ amountText: text, error: null });
      },
      async submit() {
        const check = checkAmount(get().amountText);
        if (!check.ok || get().creating) return null;
        set({ creating: true, error: null });
        try {
          const { order } = await api.createOrder(check.display);
          waitCtl?.abort();
          set({ creating: false, order, waiting: false, network: null });
          return order.prepayId;
        } catch (e) {
          set({ creating: false, error: describeFailure(e) });
          return null;
        }
      },
      async open(prepayId) {
        const current = get().order;
        if (current?.prepayId === prepayId) {
          if (current.status === 'active' && !get().waiting) startWaiting(prepayId);
          return;
        }
        waitCtl?.abort();
        set({ order: null, loading: true, error: null, waiting: false, network: null });
        try {
          const { order } = await api.getOrder(prepayId);
          set({ order, loading: false, amountText: order.amount });
          if (order.status === 'active') startWaiting(prepayId);
        } catch (e) {
          set({ loading: false, error: describeFailure(e) });
        }
      },
      setView(view) {
        set({ view });
      },
      stop() {
        waitCtl?.abort();
        waitCtl = null;
        set({ waiting: false, network: null });
      },
      reset() {
        waitCtl?.abort();
        waitCtl = null;
        set({ amountText: '', order: null, error: null, waiting: false, network: null, loading: false });
      },
    };
  });
  return store;
}
