/** Orders of a day by status and sub-merchant, or one order found by its prepay id. */
import { useEffect, useState, type FormEvent } from 'react';
import { useConsoleApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { useT } from '../i18n/use-t';
import { Money } from '@kit/web-common/Money';

const STATUSES = ['active', 'finish', 'cancel', 'refunded'] as const;

export function OrdersView() {
  const { orders, session, route } = useConsoleApp();
  const state = useStore(orders, (s) => s);
  const merchants = useStore(session, (s) => s.session?.merchants ?? []);
  const t = useT();
  const [search, setSearch] = useState(state.filter.prepayId ?? '');

  useEffect(() => {
    void orders.getState().load();
  }, [orders]);

  const find = (e: FormEvent) => {
    e.preventDefault();
    void orders.getState().set({ prepayId: search.trim() || undefined });
  };
  const f = state.filter;
  const searching = !!f.prepayId;

  return (
    <section className="orders">
      <form className="filters card" onSubmit={find}>
        <label>
          {t('orders.day')}
          <input
            type="date"
            data-testid="console-day"
            value={f.day}
            disabled={searching}
            onChange={(e) => e.target.value && void orders.getState().set({ day: e.target.value })}
          />
        </label>
        <label>
          {t('orders.status')}
          <select
            data-testid="console-status"
            value={f.status ?? ''}
            disabled={searching}
            onChange={(e) => void orders.getState().set({ status: e.target.value || undefined })}
          >
            <option value="">{t('orders.all')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`status.${s}`)}
              </option>
            ))}
          </select>
        </label>
        {merchants.length > 1 && (
          <label>
            {t('orders.merchant')}
            <select
              data-testid="console-merchant"
              value={f.subMerchantId ?? ''}
              disabled={searching}
              onChange={(e) => void orders.getState().set({ subMerchantId: e.target.value || undefined })}
            >
              <option value="">{t('orders.all')}</option>
              {merchants.slice(1).map((m) => (
                <option key={m.id} value={m.id}>
                  {m.displayName} ({m.id})
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="search">
          {t('orders.search')}
          <span className="search-row">
            <input data-testid="console-search" value={search} placeholder={t('orders.searchPlaceholder')} onChange={(e) => setSearch(e.target.value)} />
            <button type="submit" className="primary" data-testid="console-search-submit">
              {t('orders.find')}
            </button>
            {searching && (
              <button
                type="button"
                data-testid="console-search-clear"
                onClick={() => {
                  setSearch('');
                  void orders.getState().set({ prepayId: undefined });
                }}
              >
                {t('orders.clear')}
              </button>
            )}
          </span>
        </label>
      </form>
      {state.message && (
        <p className="message error" role="alert">
          {t(state.message)}
        </p>
      )}
      {state.orders && (
        <div className="card list">
          <p className="muted count">{t('orders.count', { count: state.orders.length })}</p>
          {state.orders.length === 0 && <p className="muted">{t(searching ? 'orders.noneFound' : 'orders.none')}</p>}
          <ul className="order-rows">
            {state.orders.map((o) => (
              <li key={o.prepayId}>
                <button
                  type="button"
                  className="order-row"
                  data-testid="console-order-row"
                  onClick={() => route.getState().go({ name: 'order', prepayId: o.prepayId })}
                >
                  <span className="id">{o.prepayId}</span>
                  <span className={`chip ${o.status}`}>{t(`status.${o.status}`)}</span>
                  <Money value={o.amount} lang={t.lang} />
                  <span className="muted sub">{o.subMerchantId}</span>
                  <span className="muted at">{t.time(o.createTime)}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
