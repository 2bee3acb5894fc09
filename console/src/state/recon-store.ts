/** The reconciliation view: the reconciled days (newest first), one day's report of the login's merchants, and "Reconcile now". */
import { createStore } from 'zustand/vanilla';
import type { ConsoleReconcileRun, ConsoleReconciliationDay, ConsoleReconciliationReport } from '@kit/shared/api/console';
import { KitApiError } from '@kit/shared/errors';
import type { ConsoleApi } from '../api';
import { describeFailure, type Msg } from '../i18n/i18n';

/** Today's China date (UTC+8, no daylight saving): reconciliation's days are China's, whatever this browser's zone. */
export const chinaToday = (now = Date.now()) => new Date(now + 8 * 3_600_000).toISOString().slice(0, 10);

export interface ReconState {
  days: ConsoleReconciliationDay[] | null;
  /** The day shown, and its reports (null while it loads or when it failed). */
  date: string | null;
  reports: ConsoleReconciliationReport[] | null;
  /** The day shown has not been reconciled (yet). */
  notReconciled: boolean;
  loading: boolean;
  message: Msg | null;
  /** The last "Reconcile now": its day, whether it runs, what it did per channel, or why it was refused. */
  now: { date: string | null; running: boolean; runs: ConsoleReconcileRun[] | null; message: Msg | null };
  loadDays(): Promise<void>;
  openDay(date: string): Promise<void>;
  reconcileNow(date: string): Promise<void>;
}

export function createReconStore(api: ConsoleApi) {
  let seq = 0;
  return createStore<ReconState>()((set, get) => ({
    days: null,
    date: null,
    reports: null,
    notReconciled: false,
    loading: false,
    message: null,
    now: { date: null, running: false, runs: null, message: null },
    async loadDays() {
      const mine = ++seq;
      set({ loading: true, message: null });
      try {
        const { days } = await api.reconciliations();
        if (mine === seq) set({ days, loading: false });
      } catch (e) {
        if (mine === seq) set({ loading: false, message: describeFailure(e) });
      }
    },
    async openDay(date) {
      const mine = ++seq;
      set({ date, reports: null, notReconciled: false, loading: true, message: null });
      try {
        const { reports } = await api.reconciliation(date);
        if (mine === seq) set({ reports, loading: false });
      } catch (e) {
        if (mine !== seq) return;
        // A day not reconciled yet is no failure: the page offers to reconcile it.
        if (e instanceof KitApiError && e.error === 'not_found') set({ loading: false, notReconciled: true });
        else set({ loading: false, message: describeFailure(e) });
      }
    },
    async reconcileNow(date) {
      set({ now: { date, running: true, runs: null, message: null } });
      try {
        const { runs } = await api.reconcileNow(date);
        set({ now: { date, running: false, runs, message: null } });
      } catch (e) {
        set({ now: { date, running: false, runs: null, message: describeFailure(e) } });
        return;
      }
      // The list shows the day now, and an open report of the day its differences.
      await get().loadDays();
      if (get().date === date) await get().openDay(date);
    },
  }));
}
