/** One order's story: its timeline, its callbacks with every attempt (resend), its refund (with a confirmation) and its splits. */
import { useEffect } from 'react';
import type { ConsoleTimelineEvent } from '@kit/shared/api/console';
import { useConsoleApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { useT } from '../i18n/use-t';
import { isMessageKey, type Translator } from '../i18n/i18n';
import { Money } from '@kit/web-common/Money';
import { walletStyle } from '@kit/web-common/wallets';
import { CallbackCard } from './Attempts';

export function OrderView({ prepayId }: { prepayId: string }) {
  const { order, route } = useConsoleApp();
  const s = useStore(order, (x) => x);
  const t = useT();

  useEffect(() => {
    void order.getState().open(prepayId);
  }, [order, prepayId]);

  const o = s.order?.prepayId === prepayId ? s.order : null;
  return (
    <section className="order">
      <div className="order-top">
        <button type="button" className="link" data-testid="console-back" onClick={() => route.getState().go({ name: 'orders' })}>
          {t('order.back')}
        </button>
        <button type="button" data-testid="console-refresh" onClick={() => void order.getState().reload()}>
          {t('order.refreshing')}
        </button>
      </div>
      {s.message && (
        <p className="message error" role="alert" data-testid="console-order-message">
          {t(s.message)}
        </p>
      )}
      {o && (
        <>
          <div className="card order-head">
            <h1 className="order-title">{t('order.title', { id: o.prepayId })}</h1>
            <div className="facts">
              <span className={`chip ${o.status}`} data-testid="console-order-status">
                {t(`status.${o.status}`)}
              </span>
              <Money value={o.amount} lang={t.lang} />
              <span className="muted" title={o.subMerchantId}>
                {t('order.shopIs', { name: o.merchantName })}
              </span>
              {o.paymentChannel && (
                <span className="chip wallet" style={walletStyle(o.paymentChannel)} data-testid="console-order-wallet" data-channel={o.paymentChannel}>
                  {t('order.paidWith', { wallet: t.word('channel', o.paymentChannel) })}
                </span>
              )}
              {o.refund && <span className="muted">{t('order.refundState', { state: known(t, 'refund', o.refund.state) })}</span>}
            </div>
            {o.refundable && !s.confirming && (
              <button type="button" className="danger" data-testid="console-refund" onClick={() => order.getState().askRefund(true)}>
                {t('order.refund')}
              </button>
            )}
            {s.confirming && (
              <div className="confirm" role="alertdialog" aria-modal="false" data-testid="console-refund-confirm">
                <p>{t('order.refundAsk', { amount: t.money(o.amount) })}</p>
                <div className="confirm-buttons">
                  <button
                    type="button"
                    className="danger"
                    data-testid="console-refund-yes"
                    disabled={s.refunding}
                    onClick={() => void order.getState().refund()}
                  >
                    {s.refunding ? t('order.refunding') : t('order.refundConfirm')}
                  </button>
                  <button type="button" data-testid="console-refund-no" disabled={s.refunding} onClick={() => order.getState().askRefund(false)}>
                    {t('order.refundCancel')}
                  </button>
                </div>
              </div>
            )}
          </div>

          <div className="card">
            <h2>{t('order.timeline')}</h2>
            <ol className="timeline" data-testid="console-timeline">
              {o.timeline.map((e, i) => (
                <li key={i} data-testid="console-event" data-kind={e.kind}>
                  <span className="at">{t.time(e.at)}</span>
                  <span className="what">{eventText(t, e)}</span>
                </li>
              ))}
            </ol>
          </div>

          <div className="card">
            <h2>{t('order.callbacks')}</h2>
            {o.callbacks.length === 0 && <p className="muted">{t('order.noCallbacks')}</p>}
            {o.callbacks.map((c) => (
              <CallbackCard
                key={c.id}
                item={c}
                className="callback"
                resent={s.resent[c.id] && t(s.resent[c.id])}
                onResend={() => void order.getState().resend(c.id)}
              />
            ))}
          </div>

          {o.splits.length > 0 && (
            <div className="card">
              <h2>{t('order.splits')}</h2>
              {o.splits.map((sp) => (
                <div key={sp.outOrderNo} className="split" data-testid="console-split">
                  <p>
                    <strong>{sp.outOrderNo}</strong> · {known(t, 'split', sp.kind)} · {known(t, 'split', sp.state)} · <Money value={sp.amount} lang={t.lang} />
                  </p>
                  <ul>
                    {sp.receivers.map((r) => (
                      <li key={`${r.type}:${r.account}`}>
                        {r.account} · <Money value={r.amount} lang={t.lang} /> · {known(t, 'share', r.result)}
                        {r.failReason ? ` (${r.failReason})` : ''}
                      </li>
                    ))}
                  </ul>
                </div>
              ))}
            </div>
          )}
        </>
      )}
    </section>
  );
}

/** A state word from the wire in the reader's language; one the catalogue does not know is shown as it came. */
function known(t: Translator, group: 'refund' | 'split' | 'share' | 'paidVia', word: string): string {
  const key = `${group}.${word}`;
  return isMessageKey(key) ? t(key) : word;
}

function eventText(t: Translator, e: ConsoleTimelineEvent): string {
  const d: Record<string, string> = { ...e.detail, cause: e.cause };
  if (e.kind === 'callback') {
    d.cause = t(`cb.event.${e.cause as 'finish' | 'refunded'}`);
    d.state = t(`cb.state.${(e.detail?.state ?? 'pending') as 'pending'}`);
  }
  if (e.kind === 'sharingRequested') d.cause = known(t, 'split', e.cause);
  if (e.kind === 'sharingResult') d.cause = known(t, 'share', e.cause);
  if (e.kind === 'paid') d.cause = known(t, 'paidVia', e.cause);
  if (e.kind === 'channelOrder') d.cause = t.word('tradeType', e.cause);
  if (e.kind === 'channelOrderClosed') d.cause = t.word('coState', e.cause);
  if (d.amount) d.amount = t.money(d.amount);
  if (d.channel) d.channel = t.word('channel', d.channel);
  return t(`event.${e.kind}`, d);
}
