/** Orders of a day by status and sub-merchant, or one order found by its prepay id. */
import { useEffect, useState, type FormEvent } from 'react';
import { useConsoleApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { useT } from '../i18n/use-t';
import { Money } from '@kit/web-common/Money';
import { formatCents, parseCents } from '@kit/shared/money';
import type { ConsoleOrderLine } from '@kit/shared/api/console';
import { DayField } from './DayField';

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
  // A parent's orders are its shops' (named, not numbered); a shop's own login needs no shop column.
  const shopName = new Map(merchants.map((m) => [m.id, m.displayName]));
  const showShop = merchants.length > 1;
  const paid = paidTotal(state.orders ?? []);

  return (
    <section className="orders">
      <form className="filters card" onSubmit={find}>
        <div className="field">
          <span className="field-label">{t('orders.day')}</span>
          <DayField value={f.day} label={t('orders.day')} testId="console-day" disabled={searching} onChange={(day) => void orders.getState().set({ day })} />
        </div>
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
                  {m.displayName}
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
          <p className="muted count" data-testid="console-order-count">
            {t.count('orders.count', state.orders.length)}
          </p>
          {state.orders.length === 0 ? (
            <p className="muted">{t(searching ? 'orders.noneFound' : 'orders.none')}</p>
          ) : (
            <table className="report orders-table">
              <thead>
                <tr>
                  <th scope="col" className="at">
                    {t('orders.created')}
                  </th>
                  <th scope="col">{t('orders.prepayId')}</th>
                  {showShop && <th scope="col">{t('orders.shop')}</th>}
                  <th scope="col">{t('orders.state')}</th>
                  <th scope="col">{t('orders.wallet')}</th>
                  <th scope="col" className="num">
                    {t('orders.amount')}
                  </th>
                </tr>
              </thead>
              <tbody>
                {state.orders.map((o) => {
                  const go = () => route.getState().go({ name: 'order', prepayId: o.prepayId });
                  return (
                    <tr key={o.prepayId} className="order-row" data-testid="console-order-row" onClick={go}>
                      <td className="at">{t.time(o.createTime)}</td>
                      <td className="id-cell">
                        <button
                          type="button"
                          className="link id"
                          aria-label={t('orders.open', { id: o.prepayId })}
                          onClick={(e) => {
                            e.stopPropagation();
                            go();
                          }}
                        >
                          {o.prepayId}
                        </button>
                      </td>
                      {showShop && (
                        <td className="shop" title={o.subMerchantId}>
                          {shopName.get(o.subMerchantId) ?? o.subMerchantId}
                        </td>
                      )}
                      <td className="state">
                        <span className={`chip ${o.status}`}>{t(`status.${o.status}`)}</span>
                      </td>
                      <td className="wallet" data-testid="console-order-wallet" data-channel={o.paymentChannel ?? ''}>
                        {o.paymentChannel ? t.word('channel', o.paymentChannel) : ''}
                      </td>
                      <td className="num">
                        <Money value={o.amount} lang={t.lang} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
              {paid.count > 0 && (
                <tfoot>
                  <tr>
                    <td colSpan={showShop ? 6 : 5} className="num" data-testid="console-paid-total">
                      {t.count('orders.paidTotal', paid.count, { amount: t.money(paid.amount) })}
                    </td>
                  </tr>
                </tfoot>
              )}
            </table>
          )}
        </div>
      )}
    </section>
  );
}

/** The paid orders of the list and their sum (in cents: money is never a float). */
function paidTotal(orders: readonly ConsoleOrderLine[]): { count: number; amount: string } {
  const paid = orders.filter((o) => o.status === 'finish');
  return { count: paid.length, amount: formatCents(paid.reduce((n, o) => n + parseCents(o.amount), 0)) };
}
