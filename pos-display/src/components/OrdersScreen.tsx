/** Today's orders with their state; a paid one can be refunded after a confirmation. */
import { useEffect } from 'react';
import { usePosApp } from '../state/app';
import { useStore } from '../state/use-store';
import { CURRENCY, STATUS_LABEL, clockTime } from '../format';

export function OrdersScreen() {
  const { orders, route, sale } = usePosApp();
  const list = useStore(orders, (s) => s.orders);
  const loading = useStore(orders, (s) => s.loading);
  const loaded = useStore(orders, (s) => s.loaded);
  const error = useStore(orders, (s) => s.error);
  const notice = useStore(orders, (s) => s.notice);
  const confirming = useStore(orders, (s) => s.confirming);
  const refunding = useStore(orders, (s) => s.refunding);

  useEffect(() => {
    void orders.getState().load();
    return () => orders.getState().stop();
  }, [orders]);

  const target = confirming ? list.find((o) => o.prepayId === confirming) : undefined;
  const paidTotal = list.filter((o) => o.status === 'finish').length;

  return (
    <main className="orders">
      <div className="orders-head">
        <h1>Today’s orders</h1>
        <span className="hint">{loaded ? `${list.length} orders, ${paidTotal} paid` : ''}</span>
        <button type="button" className="secondary" data-testid="orders-reload" onClick={() => void orders.getState().load()} disabled={loading}>
          {loading ? 'Loading…' : 'Reload'}
        </button>
      </div>
      {error && (
        <p className="message error" role="alert" data-testid="orders-error">
          {error}
        </p>
      )}
      {notice && (
        <p className="message ok" role="status" data-testid="orders-notice">
          {notice}
        </p>
      )}
      {loaded && list.length === 0 && <p className="message hint">No orders yet today.</p>}
      <ul className="order-list" data-testid="order-list">
        {list.map((o) => {
          const busy = refunding.includes(o.prepayId);
          const status = busy ? 'refunding' : o.status;
          return (
            <li key={o.prepayId} className={`order-line status-${status}`} data-testid={`order-${o.prepayId}`}>
              <span className="time">{clockTime(o.createTime)}</span>
              <span className="amount">
                {CURRENCY} {o.amount}
              </span>
              <span className="state" data-testid={`order-status-${o.prepayId}`} data-status={status}>
                {busy ? 'Refunding…' : STATUS_LABEL[o.status]}
                {o.status === 'finish' && o.paymentTime ? ` ${clockTime(o.paymentTime)}` : ''}
              </span>
              <span className="actions">
                {o.status === 'active' && (
                  <button type="button" className="secondary" onClick={() => route.getState().go({ name: 'pay', prepayId: o.prepayId })}>
                    Show code
                  </button>
                )}
                {o.status === 'finish' && (
                  <button type="button" className="danger" data-testid={`refund-${o.prepayId}`} disabled={busy} onClick={() => orders.getState().askRefund(o.prepayId)}>
                    Refund
                  </button>
                )}
              </span>
            </li>
          );
        })}
      </ul>
      {confirming && (
        <div className="dialog-backdrop">
          <div className="dialog card" role="alertdialog" aria-modal="true" aria-labelledby="refund-title" data-testid="refund-dialog">
            <h2 id="refund-title">Refund this order?</h2>
            <p>
              The full amount{target ? ` of ${CURRENCY} ${target.amount}` : ''} goes back to the customer. This cannot be undone.
            </p>
            <p className="order-ref">Order {confirming}</p>
            <div className="row">
              <button type="button" className="secondary big" data-testid="refund-cancel" onClick={() => orders.getState().cancelRefund()}>
                Keep payment
              </button>
              <button type="button" className="danger big" data-testid="refund-confirm" onClick={() => void orders.getState().confirmRefund()}>
                Refund {target ? `${CURRENCY} ${target.amount}` : ''}
              </button>
            </div>
          </div>
        </div>
      )}
      <div className="row">
        <button
          type="button"
          className="primary big"
          onClick={() => {
            sale.getState().reset();
            route.getState().go({ name: 'charge' });
          }}
        >
          New sale
        </button>
      </div>
    </main>
  );
}
