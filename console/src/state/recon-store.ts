/** The reconciliation view: the reconciled days (newest first), and one day's report of the login's merchants. */
import { createStore } from 'zustand/vanilla';
import type { ConsoleReconciliationDay, ConsoleReconciliationReport } from '@kit/shared/api/console';
import type { ConsoleApi } from '../api';
import { describeFailure, type Msg } from '../i18n/i18n';

export interface ReconState {
  days: ConsoleReconciliationDay[] | null;
  /** The day shown, and its reports (null while it loads or when it failed). */
  date: string | null;
  reports: ConsoleReconciliationReport[] | null;
  loading: boolean;
  message: Msg | null;
  loadDays(): Promise<void>;
  openDay(date: string): Promise<void>;
}

export function createReconStore(api: ConsoleApi) {
  let seq = 0;
  return createStore<ReconState>()((set) => ({
    days: null,
    date: null,
    reports: null,
    loading: false,
    message: null,
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
      set({ date, reports: null, loading: true, message: null });
      try {
        const { reports } = await api.reconciliation(date);
        if (mine === seq) set({ reports, loading: false });
      } catch (e) {
        if (mine === seq) set({ loading: false, message: describeFailure(e) });
      }
    },
  }));
}
