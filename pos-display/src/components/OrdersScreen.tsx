/**
 * Today's orders with their state; a paid one can be refunded after a confirmation. Each line has
 * a row of chips (the order's state and, for an order placed with profit sharing, how much of it
 * was shared: read-only, the back office splits) and the payment time beside them, never inside a chip.
 * The head says what the paid orders took today. Refund is a quiet outlined button on each line: a
 * solid red one on every row shouts at the cashier; the confirmation dialog carries the red one.
 */
import { useEffect } from 'react';
import { usePosApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { paidTotal } from '../state/orders-store';
import { clockTime } from '../format';
import { useT } from '../i18n/use-t';
import { Money } from '@kit/web-common/Money';
import { walletStyle } from '@kit/web-common/wallets';

export function OrdersScreen() {
  const { orders, route, sale } = usePosApp();
  const list = useStore(orders, (s) => s.orders);
  const loading = useStore(orders, (s) => s.loading);
  const loaded = useStore(orders, (s) => s.loaded);
  const error = useStore(orders, (s) => s.error);
  const notice = useStore(orders, (s) => s.notice);
  const confirming = useStore(orders, (s) => s.confirming);
  const refunding = useStore(orders, (s) => s.refunding);
  const t = useT();

  useEffect(() => {
    void orders.getState().load();
    return () => orders.getState().stop();
  }, [orders]);

  const target = confirming ? list.find((o) => o.prepayId === confirming) : undefined;
  const paidCount = list.filter((o) => o.status === 'finish').length;

  return (
    <main className="orders">
      <div className="orders-head">
        <h1>{t('orders.title')}</h1>
        {loaded && (
          <span className="orders-summary">
            <span className="orders-total" data-testid="orders-total">
              {t('orders.total', { amount: t.money(paidTotal(list)) })}
            </span>
            <span className="hint" data-testid="orders-summary">
              {t('orders.summary', { count: list.length, paid: paidCount })}
            </span>
          </span>
        )}
        <div className="orders-actions">
          <button type="button" className="secondary" data-testid="orders-reload" onClick={() => void orders.getState().load()} disabled={loading}>
            {loading ? t('orders.loading') : t('orders.reload')}
          </button>
          <button
            type="button"
            className="primary"
            data-testid="orders-new-sale"
            onClick={() => {
              sale.getState().reset();
              route.getState().go({ name: 'charge' });
            }}
          >
            {t('orders.newSale')}
          </button>
        </div>
      </div>
      {error && (
        <p className="message error" role="alert" data-testid="orders-error">
          {t(error)}
        </p>
      )}
      {notice && (
        <p className="message ok" role="status" data-testid="orders-notice">
          {t(notice)}
        </p>
      )}
      {loaded && list.length === 0 && <p className="message hint">{t('orders.empty')}</p>}
      <ul className="order-list" data-testid="order-list" data-scroll-list="">
        {list.map((o) => {
          const busy = refunding.includes(o.prepayId);
          const status = busy ? 'refunding' : o.status;
          const paid = (o.status === 'finish' || busy) && o.paymentTime;
          // A refunded order says when it was refunded (its payment is in its past).
          const refundedAt = o.status === 'refunded' && !busy ? (o.refundTime ?? null) : null;
          return (
            <li key={o.prepayId} className="order-line" data-status={status} data-testid={`order-${o.prepayId}`}>
              <span className="when">
                <span className="time">{clockTime(o.createTime)}</span>
                <span className="ref">{o.prepayId}</span>
              </span>
              <Money value={o.amount} lang={t.lang} className="amount" />
              <span className="chips">
                <span className={`chip status-${status}`} data-testid={`order-status-${o.prepayId}`} data-status={status}>
                  {t(`status.${status}`)}
                </span>
                {o.paymentChannel && (
                  <span
                    className="chip wallet"
                    style={walletStyle(o.paymentChannel)}
                    data-testid={`order-wallet-${o.prepayId}`}
                    data-channel={o.paymentChannel}
                  >
                    {t.channel(o.paymentChannel, 'names')}
                  </span>
                )}
                {o.profitSharing && (
                  <span
                    className={`chip sharing sharing-${o.profitSharing.state}`}
                    data-testid={`order-sharing-${o.prepayId}`}
                    data-state={o.profitSharing.state}
                    title={t('orders.sharing.title', { max: t.money(o.profitSharing.maxShareAmount) })}
                  >
                    {t(`orders.sharing.${o.profitSharing.state}`, {
                      amount: t.money(o.profitSharing.sharedAmount),
                      max: t.money(o.profitSharing.maxShareAmount),
                    })}
                  </span>
                )}
                {paid && (
                  <span className="paid-at" data-testid={`order-paid-${o.prepayId}`}>
                    {t(status === 'finish' ? 'orders.paidAtShort' : 'orders.paidAt', { time: clockTime(o.paymentTime) })}
                  </span>
                )}
                {refundedAt && (
                  <span className="paid-at" data-testid={`order-refunded-${o.prepayId}`}>
                    {t('orders.refundedAt', { time: clockTime(refundedAt) })}
                  </span>
                )}
              </span>
              <span className="actions">
                {o.status === 'active' && (
                  <button type="button" className="secondary" onClick={() => route.getState().go({ name: 'pay', prepayId: o.prepayId })}>
                    {t('orders.showCode')}
                  </button>
                )}
                {/* While the refund runs, its progress replaces the button; the line then reads Refunded, with the time. */}
                {busy ? (
                  <span
                    className="refund-progress"
                    role="status"
                    aria-label={t('orders.refundProgress')}
                    title={t('orders.refundProgress')}
                    data-testid={`refund-progress-${o.prepayId}`}
                  >
                    <span className="spinner" aria-hidden="true" />
                  </span>
                ) : (
                  o.status === 'finish' && (
                    <button type="button" className="quiet-danger" data-testid={`refund-${o.prepayId}`} onClick={() => orders.getState().askRefund(o.prepayId)}>
                      {t('orders.refund')}
                    </button>
                  )
                )}
              </span>
            </li>
          );
        })}
      </ul>
      {confirming && (
        <div className="dialog-backdrop">
          <div className="dialog card" role="alertdialog" aria-modal="true" aria-labelledby="refund-title" data-testid="refund-dialog">
            <h2 id="refund-title">{t('refund.title')}</h2>
            {target && (
              <div className="dialog-amount-box">
                <Money value={target.amount} lang={t.lang} className="dialog-amount" testId="refund-amount" fit />
              </div>
            )}
            <p className="order-ref">{t('pay.orderRef', { id: confirming })}</p>
            <p>{t('refund.body')}</p>
            <div className="row">
              <button type="button" className="secondary big" data-testid="refund-cancel" onClick={() => orders.getState().cancelRefund()}>
                {t('refund.keep')}
              </button>
              <button type="button" className="danger big" data-testid="refund-confirm" onClick={() => void orders.getState().confirmRefund()}>
                {t('refund.confirm')}
              </button>
            </div>
          </div>
        </div>
      )}
    </main>
  );
}
