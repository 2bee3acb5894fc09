/**
 * The customer-facing payment code: large amount and merchant name, the mini-program code (or,
 * switchable, the scan-code QR), and the order's live state from the 4.2 long-poll loop.
 */
import { useEffect } from 'react';
import { usePosApp } from '../state/app';
import { useStore } from '../state/use-store';
import { CURRENCY, STATUS_LABEL, clockTime } from '../format';
import { QrCode } from './QrCode';

export function PayScreen({ prepayId }: { prepayId: string }) {
  const { sale, route } = usePosApp();
  const order = useStore(sale, (s) => s.order);
  const loading = useStore(sale, (s) => s.loading);
  const error = useStore(sale, (s) => s.error);
  const view = useStore(sale, (s) => s.view);
  const network = useStore(sale, (s) => s.network);
  const creating = useStore(sale, (s) => s.creating);

  useEffect(() => {
    void sale.getState().open(prepayId);
    return () => sale.getState().stop();
  }, [sale, prepayId]);

  const newSale = () => {
    sale.getState().reset();
    route.getState().go({ name: 'charge' });
  };
  const newCode = async () => {
    if (order) sale.getState().setAmount(order.amount);
    const id = await sale.getState().submit();
    if (id) route.getState().go({ name: 'pay', prepayId: id });
  };

  if (!order || order.prepayId !== prepayId) {
    return (
      <main className="pay pay-loading">
        {loading && <p className="message hint">Loading the order…</p>}
        {error && (
          <div className="card">
            <p className="message error" role="alert" data-testid="pay-error">
              {error}
            </p>
            <div className="row">
              <button type="button" className="secondary big" onClick={() => void sale.getState().open(prepayId)}>
                Try again
              </button>
              <button type="button" className="primary big" onClick={newSale}>
                New sale
              </button>
            </div>
          </div>
        )}
      </main>
    );
  }

  const status = order.status;
  return (
    <main className={`pay pay-${status}`}>
      <section className="pay-code">
        {status === 'active' ? (
          <>
            <div className="switch" role="tablist" aria-label="Kind of code">
              <button type="button" role="tab" aria-selected={view === 'miniProgram'} className={view === 'miniProgram' ? 'on' : ''} data-testid="view-miniprogram" onClick={() => sale.getState().setView('miniProgram')}>
                Mini-program code
              </button>
              <button type="button" role="tab" aria-selected={view === 'scanCode'} className={view === 'scanCode' ? 'on' : ''} data-testid="view-scancode" onClick={() => sale.getState().setView('scanCode')}>
                Scan-code QR
              </button>
            </div>
            {view === 'miniProgram' ? (
              <QrCode content={order.miniProgramLink} testId="pay-qr" label={`Mini-program payment code for ${CURRENCY} ${order.amount}`} />
            ) : order.codeUrl ? (
              <QrCode content={order.codeUrl} testId="pay-qr" label={`Scan-code payment QR for ${CURRENCY} ${order.amount}`} />
            ) : (
              <p className="message error qr-missing" role="alert" data-testid="codeurl-error">
                The scan-code QR is not available: {order.codeUrlError ?? 'the payment channel gave none'}. Use the mini-program code.
              </p>
            )}
            <p className="scan-hint">{view === 'miniProgram' ? 'Scan with the social app to pay' : 'Scan with the social app’s scanner to pay'}</p>
          </>
        ) : (
          <div className={`result-mark mark-${status}`} aria-hidden="true">
            {status === 'finish' ? '✓' : status === 'refunded' ? '↩' : '⌛'}
          </div>
        )}
      </section>
      <section className="pay-info">
        <div className="merchant-name" data-testid="pay-merchant">{order.merchantName}</div>
        <div className="pay-amount" data-testid="pay-amount">
          <span className="currency">{CURRENCY}</span>
          {order.amount}
        </div>
        <div className={`order-status status-${status}`} data-testid="order-status" data-status={status} role="status" aria-live="assertive">
          {status === 'finish' ? `Paid at ${clockTime(order.paymentTime)}` : STATUS_LABEL[status]}
          {status === 'active' && <span className="dots" aria-hidden="true" />}
        </div>
        {status === 'cancel' && <p className="message error">This code has expired and can no longer be paid. Create a new code to charge again.</p>}
        {status === 'refunded' && order.paymentTime && <p className="message hint">Paid at {clockTime(order.paymentTime)}, refunded since.</p>}
        {network && (
          <p className="message warn" role="alert" data-testid="pay-network">
            {network} Still waiting for the payment.
          </p>
        )}
        {error && (
          <p className="message error" role="alert" data-testid="pay-error">
            {error}
          </p>
        )}
        <p className="order-ref">Order {order.prepayId}</p>
        <div className="row">
          {status === 'cancel' && (
            <button type="button" className="primary big" data-testid="new-code" disabled={creating} onClick={() => void newCode()}>
              {creating ? 'Creating…' : 'New code'}
            </button>
          )}
          <button type="button" className={status === 'active' || status === 'cancel' ? 'secondary big' : 'primary big'} data-testid="new-sale" onClick={newSale}>
            {status === 'active' ? 'Back to keypad' : 'New sale'}
          </button>
        </div>
      </section>
    </main>
  );
}
