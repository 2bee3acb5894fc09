/**
 * The customer-facing payment code: large amount and merchant name, the one code for any wallet
 * (or, switchable, the mini-program code and the scan-code QR), and the order's live state from the
 * 4.2 long-poll loop, naming the wallet that paid. Each code's hint names the wallets whose apps scan
 * it, and the "paid with" line is in the colour of the wallet that paid, as the wallets declare them.
 */
import { useEffect, useState } from 'react';
import type { PosDevelopmentHelp } from '@kit/shared/api/pos';
import { usePosApp } from '../state/app';
import type { CodeView } from '../state/sale-store';
import { useStore } from '@kit/web-common/use-store';
import { clockTime } from '../format';
import { useT } from '../i18n/use-t';
import { serviceError } from '../i18n/failure';
import { Money } from '@kit/web-common/Money';
import { walletStyle } from '@kit/web-common/wallets';
import { QrCode } from './QrCode';
import { PlatformCode } from './PlatformCode';
import { PayerCode } from './PayerCode';

export function PayScreen({ prepayId }: { prepayId: string }) {
  const { sale, route } = usePosApp();
  const order = useStore(sale, (s) => s.order);
  const loading = useStore(sale, (s) => s.loading);
  const error = useStore(sale, (s) => s.error);
  const view = useStore(sale, (s) => s.view);
  const network = useStore(sale, (s) => s.network);
  const creating = useStore(sale, (s) => s.creating);
  const t = useT();

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
        {loading && <p className="message hint">{t('pay.loading')}</p>}
        {error && (
          <div className="card">
            <p className="message error" role="alert" data-testid="pay-error">
              {t(error)}
            </p>
            <div className="row">
              <button type="button" className="secondary big" onClick={() => void sale.getState().open(prepayId)}>
                {t('pay.retry')}
              </button>
              <button type="button" className="primary big" onClick={newSale}>
                {t('pay.newSale')}
              </button>
            </div>
          </div>
        )}
      </main>
    );
  }

  const status = order.status;
  const amount = t.money(order.amount);
  return (
    <main className={`pay pay-${status}`}>
      <section className={`pay-code${order.development && status === 'active' ? ' with-dev' : ''}`}>
        {status === 'active' ? (
          <>
            <div className="switch" role="tablist" aria-label={t('pay.viewLabel')}>
              {(
                [
                  ['anyWallet', 'view-anywallet', 'pay.viewAny'],
                  ['miniProgram', 'view-miniprogram', 'pay.viewMini'],
                  ['scanCode', 'view-scancode', 'pay.viewScan'],
                  ['payerCode', 'view-payercode', 'pay.viewPayerCode'],
                ] as const
              ).map(([v, testId, label]) => (
                <button
                  key={v}
                  type="button"
                  role="tab"
                  aria-selected={view === v}
                  className={view === v ? 'on' : ''}
                  data-testid={testId}
                  onClick={() => sale.getState().setView(v)}
                >
                  {t(label)}
                </button>
              ))}
            </div>
            {view === 'payerCode' ? (
              <PayerCode prepayId={order.prepayId} />
            ) : view === 'anyWallet' ? (
              <QrCode content={order.payerLink} testId="pay-qr" label={t('pay.qrAny', { amount })} />
            ) : view === 'miniProgram' ? (
              order.miniProgramCode === 'platform' ? (
                <PlatformCode prepayId={order.prepayId} label={t('pay.qrMini', { amount })} onScanCode={() => sale.getState().setView('scanCode')} />
              ) : (
                <QrCode content={order.miniProgramLink} testId="pay-qr" label={t('pay.qrMini', { amount })} />
              )
            ) : order.codeUrl ? (
              <QrCode content={order.codeUrl} testId="pay-qr" label={t('pay.qrScan', { amount })} />
            ) : (
              <p className="message error qr-missing" role="alert" data-testid="codeurl-error">
                {t('pay.codeUrlMissing', { reason: serviceError(order.codeUrlErrorId ?? 'channel_error', 'E0033') })}
              </p>
            )}
            {view !== 'payerCode' && (
              <p className="scan-hint">
                {view === 'anyWallet'
                  ? t('pay.hintAny', { wallets: t.wallets() })
                  : t(view === 'miniProgram' ? 'pay.hintMini' : 'pay.hintScan', { wallet: t.wallet(order.scannedWith[view]) })}
              </p>
            )}
            {order.development && view !== 'payerCode' && (
              <DevLinks
                link={view === 'anyWallet' ? order.payerLink : view === 'miniProgram' ? order.miniProgramLink : order.codeUrl}
                view={view}
                help={order.development}
              />
            )}
          </>
        ) : (
          <div className={`result-mark mark-${status}`} aria-hidden="true">
            <ResultIcon status={status} />
          </div>
        )}
      </section>
      <section className="pay-info">
        <div className="merchant-name" data-testid="pay-merchant">
          {order.merchantName}
        </div>
        <div className="pay-amount-box">
          <Money value={order.amount} lang={t.lang} className="pay-amount" testId="pay-amount" fit />
        </div>
        <div className={`order-status chip-big status-${status}`} data-testid="order-status" data-status={status} role="status" aria-live="assertive">
          {status === 'finish'
            ? t('pay.paidAt', { time: clockTime(order.paymentTime) })
            : status === 'refunded' && order.refundTime
              ? t('pay.refundedAt', { time: clockTime(order.refundTime) })
              : t(`status.${status}`)}
          {status === 'active' && <span className="dots" aria-hidden="true" />}
        </div>
        {(status === 'finish' || status === 'refunded') && order.paymentChannel && (
          <p className="paid-with" style={walletStyle(order.paymentChannel)} data-testid="pay-wallet" data-channel={order.paymentChannel}>
            {t.channel(order.paymentChannel, 'paidWith')}
          </p>
        )}
        {status === 'cancel' && <p className="message warn">{t('pay.expiredNote')}</p>}
        {status === 'refunded' && order.paymentTime && (
          <p className="message hint" data-testid="pay-refunded-note">
            {order.refundTime
              ? t('pay.refundedNote', { time: clockTime(order.paymentTime), refunded: clockTime(order.refundTime) })
              : t('pay.refundedSince', { time: clockTime(order.paymentTime) })}
          </p>
        )}
        {network && (
          <p className="message warn" role="alert" data-testid="pay-network">
            {t('pay.offline', { problem: network })}
          </p>
        )}
        {error && (
          <p className="message error" role="alert" data-testid="pay-error">
            {t(error)}
          </p>
        )}
        <p className="order-ref">{t('pay.orderRef', { id: order.prepayId })}</p>
        <div className="row">
          {status === 'cancel' && (
            <button type="button" className="primary big" data-testid="new-code" disabled={creating} onClick={() => void newCode()}>
              {creating ? t('pay.creating') : t('pay.newCode')}
            </button>
          )}
          <button
            type="button"
            className={status === 'active' || status === 'cancel' ? 'secondary big' : 'primary big'}
            data-testid="new-sale"
            onClick={newSale}
          >
            {status === 'active' ? t('pay.back') : t('pay.newSale')}
          </button>
        </div>
      </section>
    </main>
  );
}

/**
 * Outside production: the code's content as text a person can copy (a payer link to open in a
 * browser, or a code_url to pay at the sandbox), and how a phone reaches the payer link.
 */
function DevLinks({ link, view, help }: { link: string | null; view: CodeView; help: PosDevelopmentHelp }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  useEffect(() => setCopied(false), [link]);
  if (!link) return null;
  const copy = () => {
    void navigator.clipboard?.writeText(link).then(
      () => setCopied(true),
      () => undefined,
    );
  };
  const phone =
    view === 'scanCode'
      ? t('pay.devScanHint')
      : view === 'anyWallet'
        ? t('pay.devAnyHint')
        : !help.loopbackLink
          ? t('pay.devPhoneHint')
          : help.lanDisplayUrls.length > 0
            ? t('pay.devLoopbackLan', { url: help.lanDisplayUrls[0] })
            : t('pay.devLoopback');
  return (
    <div className="dev-links" data-testid="dev-links">
      <div className="dev-link-row">
        <input
          className="dev-link"
          data-testid="dev-link"
          readOnly
          value={link}
          aria-label={t(view === 'anyWallet' ? 'pay.devLinkAny' : view === 'miniProgram' ? 'pay.devLinkMini' : 'pay.devLinkScan')}
          onFocus={(e) => e.target.select()}
        />
        <button type="button" className="secondary small" data-testid="dev-copy" onClick={copy}>
          {copied ? t('pay.devCopied') : t('pay.devCopy')}
        </button>
      </div>
      <p className="dev-hint" data-testid="dev-hint">
        {phone}
      </p>
    </div>
  );
}

/** Drawn, not a font glyph: the same on every counter screen, whatever fonts it has. */
function ResultIcon({ status }: { status: string }) {
  const line = { fill: 'none', stroke: 'currentColor', strokeWidth: 2.2, strokeLinecap: 'round', strokeLinejoin: 'round' } as const;
  return (
    <svg viewBox="0 0 24 24" className="result-icon">
      {status === 'finish' && <path d="M5 12.5l4.5 4.5L19 7.5" {...line} />}
      {status === 'refunded' && (
        <>
          <path d="M9 13L4.5 8.5 9 4" {...line} />
          <path d="M4.5 8.5H14a5.5 5.5 0 010 11h-3" {...line} />
        </>
      )}
      {status === 'cancel' && (
        <>
          <circle cx="12" cy="12" r="8.5" {...line} />
          <path d="M12 7.5V12l3 2.5" {...line} />
        </>
      )}
    </svg>
  );
}
