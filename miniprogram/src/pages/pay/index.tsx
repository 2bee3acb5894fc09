/**
 * The payer's page. An order page a payer can trust at a glance (merchant, amount and discount,
 * order number, time, what was bought) with one primary action in a bar at the bottom of the
 * screen, and result pages: the receipt after paying, and clear pages for an order that is paid,
 * refunded, no longer valid, unknown, or could not be loaded.
 */
import { useMemo, useRef, useState, type ReactNode } from 'react';
import Taro, { useDidShow, useLoad, useUnload } from '@tarojs/taro';
import { Button, Text, View } from '@tarojs/components';
import { decimalUnits, formatMoney } from '@kit/shared/money-format';
import type { MpOrder } from '@kit/shared/api/mp';
import { applyLang, localTime, pickLang, translator, type Translator } from '../../i18n/i18n';
import { displayAmount, PayFlow, type LaunchOptions, type Notice, type PayView } from './pay-flow';
import './index.css';

const ORDER_KINDS = ['ready', 'paying', 'waiting'] as const;
type OrderKind = (typeof ORDER_KINDS)[number];
const isOrderView = (v: PayView): v is Extract<PayView, { kind: OrderKind }> => (ORDER_KINDS as readonly string[]).includes(v.kind);

export default function PayPage() {
  const [view, setView] = useState<PayView>({ kind: 'loading' });
  const [t, setT] = useState<Translator>(() => translator(pickLang()));
  const flow = useMemo(() => new PayFlow({ onChange: setView }), []);
  const options = useRef<LaunchOptions>({});
  const current = useRef(t);

  useLoad((opts: LaunchOptions) => {
    options.current = opts ?? {};
    const tr = translator(pickLang(options.current));
    current.current = tr;
    setT(tr);
    applyLang(tr);
    void flow.start(options.current);
  });
  // The title again once the page is shown: the H5 router sets the configured one on showing it.
  useDidShow(() => applyLang(current.current));
  useUnload(() => flow.stop());

  let body: ReactNode;
  let bar: ReactNode = null;
  if (view.kind === 'loading') {
    body = (
      <View className="loading">
        <View className="spinner spinner--dark" />
        <Text className="loading__text" data-testid="mp-status" data-state="loading">
          {t('state.loading')}
        </Text>
      </View>
    );
  } else if (isOrderView(view)) {
    body = <OrderPage t={t} view={view} />;
    const amount = displayAmount(view.order.totalAmount);
    bar =
      view.kind === 'ready' ? (
        <PrimaryButton testId="mp-pay" onClick={() => void flow.pay()}>
          {t('pay.button', { amount })}
        </PrimaryButton>
      ) : (
        <PrimaryButton testId="mp-pay" busy>
          {view.kind === 'paying' ? t('pay.paying') : t('pay.confirming')}
        </PrimaryButton>
      );
  } else {
    body = <ResultPage t={t} view={view} />;
    if (view.kind === 'error') {
      bar = (
        <PrimaryButton testId="mp-retry" onClick={() => void flow.retry(options.current)}>
          {t('pay.retry')}
        </PrimaryButton>
      );
    } else if (process.env.TARO_ENV !== 'h5') {
      // In the social app the payer leaves from here; an H5 page has nowhere to go back to.
      bar = (
        <PrimaryButton testId="mp-done" onClick={() => void Taro.exitMiniProgram?.().catch?.(() => Taro.navigateBack())}>
          {t('pay.done')}
        </PrimaryButton>
      );
    }
  }

  return (
    <View className={`page page--${view.kind}${bar ? ' page--with-bar' : ''}`}>
      <View className="page__body">{body}</View>
      {bar && <View className="bar">{bar}</View>}
    </View>
  );
}

/**
 * The page's one primary action. `disabled` is only ever rendered as present: Taro writes
 * `disabled={false}` as the attribute `disabled="false"`, which its own styles read as disabled.
 */
function PrimaryButton({ testId, busy = false, onClick, children }: { testId: string; busy?: boolean; onClick?: () => void; children: ReactNode }) {
  return (
    <Button
      className={`btn btn--primary${busy ? ' btn--busy' : ''}`}
      data-testid={testId}
      data-busy={busy ? 'true' : 'false'}
      hoverClass="btn--pressed"
      {...(busy ? { disabled: true } : {})}
      onClick={busy ? undefined : onClick}
    >
      {busy && <View className="spinner" />}
      <Text className="btn__text">{children}</Text>
    </Button>
  );
}

/** `¥1,000,000.00` at a size that keeps it on one line on the narrowest phone. */
function Amount({ value, className, testId }: { value: string; className: string; testId?: string }) {
  const text = displayAmount(value);
  const size = text.length <= 8 ? 'xl' : text.length <= 11 ? 'l' : 'm';
  return (
    <Text className={`money ${className} ${className}--${size}`} data-testid={testId}>
      {text}
    </Text>
  );
}

function OrderPage({ t, view }: { t: Translator; view: Extract<PayView, { kind: OrderKind }> }) {
  const { order } = view;
  const discount = decimalUnits(order.disconut, 2) ?? 0;
  const total = decimalUnits(order.totalAmount, 2);
  return (
    <View>
      <View className="hero">
        <View className="merchant">
          <View className="merchant__avatar">
            <Text>{initial(order.merchantDisplayName)}</Text>
          </View>
          <Text className="merchant__name" data-testid="mp-merchant">
            {order.merchantDisplayName}
          </Text>
        </View>
        <Text className="hero__label" data-testid="mp-status" data-state={view.kind}>
          {view.kind === 'waiting' ? t('state.waiting') : t('state.ready')}
        </Text>
        <Amount value={order.totalAmount} className="hero__amount" testId="mp-amount" />
        {discount > 0 && total !== null && (
          <View className="hero__discount" data-testid="mp-discount">
            <Text className="chip chip--discount">
              {t('order.discount')} -{formatMoney(discount)}
            </Text>
            <Text className="hero__original" data-one-line>
              {t('order.original')} <Text className="money strike">{formatMoney(total + discount)}</Text>
            </Text>
          </View>
        )}
      </View>
      {view.kind === 'ready' && view.notice && <NoticeBanner t={t} notice={view.notice} />}
      <View className="card">
        <Row label={t('order.number')} value={order.prepayId} testId="mp-order-number" />
        <Row label={t('order.created')} value={localTime(order.createTime)} testId="mp-created" />
      </View>
      <Items t={t} order={order} />
    </View>
  );
}

function NoticeBanner({ t, notice }: { t: Translator; notice: Notice }) {
  const text =
    notice.kind === 'cancelled'
      ? t('notice.cancelled')
      : t('notice.failed', { reason: notice.problem.error || notice.problem.network ? t.problem(notice.problem) : t('notice.tryAgain') });
  return (
    <View className={`notice notice--${notice.kind}`} data-testid="mp-notice" data-notice={notice.kind}>
      <Text>{text}</Text>
    </View>
  );
}

const RESULT_TONE: Record<Exclude<PayView['kind'], 'loading' | OrderKind>, { icon: string; tone: 'ok' | 'info' | 'warn' | 'bad' }> = {
  success: { icon: 'check', tone: 'ok' },
  paid: { icon: 'check', tone: 'info' },
  refunded: { icon: '↩', tone: 'info' },
  paidTwice: { icon: '↩', tone: 'warn' },
  expired: { icon: '!', tone: 'warn' },
  rescan: { icon: '!', tone: 'warn' },
  missing: { icon: '?', tone: 'warn' },
  error: { icon: '!', tone: 'bad' },
};

function ResultPage({ t, view }: { t: Translator; view: Exclude<PayView, { kind: 'loading' | OrderKind }> }) {
  const { icon, tone } = RESULT_TONE[view.kind];
  const order = 'order' in view ? view.order : undefined;
  const detail =
    view.kind === 'error'
      ? t.problem(view.problem)
      : view.kind === 'paid'
        ? t('detail.paid', { time: localTime(view.order.paymentTime) || '—' })
        : view.kind === 'paidTwice'
          ? t('detail.paidTwice', {
              time: localTime(view.order.paymentTime) || '—',
              wallet: view.order.paymentChannel ? t.channel(view.order.paymentChannel) : '—',
            })
          : t(`detail.${view.kind}`);
  const receipt = view.kind === 'success' || view.kind === 'paid';
  return (
    <View>
      <View className={`result result--${tone}`}>
        <View className="result__icon" data-testid="mp-result-icon">
          {/* Drawn, not the ✓ glyph, which Chinese fonts draw as a square-root sign. */}
          {icon === 'check' ? <View className="result__check" data-testid="mp-result-check" /> : <Text>{icon}</Text>}
        </View>
        <Text className="result__title" data-testid="mp-status" data-state={view.kind}>
          {t(`state.${view.kind}`)}
        </Text>
        <Text className="result__detail" data-testid="mp-detail">
          {detail}
        </Text>
        {order && <Amount value={order.totalAmount} className="result__amount" testId="mp-amount" />}
      </View>
      {order && <SecondPayments t={t} order={order} />}
      {order && (
        <View className="card" data-testid={receipt ? 'mp-receipt' : undefined}>
          {receipt && <Text className="card__title">{t('order.receipt')}</Text>}
          <Row label={t('order.merchant')} value={order.merchantDisplayName} testId="mp-merchant" />
          <Row label={t('order.amount')} value={displayAmount(order.totalAmount)} money />
          {order.paymentTime && (order.status === 'finish' || order.status === 'refunded') ? (
            <Row label={t('order.paidAt')} value={localTime(order.paymentTime)} testId="mp-paid-at" />
          ) : (
            <Row label={t('order.created')} value={localTime(order.createTime)} />
          )}
          <Row label={t('order.number')} value={order.prepayId} testId="mp-order-number" />
        </View>
      )}
      {order && receipt && <Items t={t} order={order} />}
    </View>
  );
}

/** Payments made after the order was paid, each with where its automatic refund is. */
function SecondPayments({ t, order }: { t: Translator; order: MpOrder }) {
  if (!order.secondPayments?.length) return null;
  return (
    <View className="card second-payments" data-testid="mp-second-payments">
      {order.secondPayments.map((p, i) => (
        <Text key={i} className={`second second--${p.refund}`} data-testid="mp-second-payment" data-refund={p.refund}>
          {t(`second.${p.refund}`, { amount: displayAmount(p.amount), wallet: t.channel(p.paymentChannel) })}
        </Text>
      ))}
    </View>
  );
}

function Row({ label, value, testId, money = false }: { label: string; value: string; testId?: string; money?: boolean }) {
  return (
    <View className="row">
      <Text className="row__label">{label}</Text>
      <Text className={`row__value${money ? ' money' : ''}`} data-testid={testId}>
        {value}
      </Text>
    </View>
  );
}

/** What was bought, when the order's `extraInfo` carries a list the router recognised. */
function Items({ t, order }: { t: Translator; order: MpOrder }) {
  if (!order.items?.length && !order.note) return null;
  return (
    <View className="card items" data-testid="mp-items">
      {!!order.items?.length && <Text className="card__title">{t('order.items')}</Text>}
      {order.items?.map((item, i) => (
        <View className="item" key={i} data-testid="mp-item">
          <Text className="item__name">{item.name}</Text>
          {item.quantity !== undefined && <Text className="item__qty">×{item.quantity}</Text>}
          {item.amount !== undefined && <Text className="item__amount money">{displayAmount(item.amount)}</Text>}
        </View>
      ))}
      {!!order.itemsMore && <Text className="items__more">{t('order.more', { count: order.itemsMore })}</Text>}
      {order.note && (
        <View className="items__note">
          <Text className="row__label">{t('order.note')}</Text>
          <Text className="items__note-text">{order.note}</Text>
        </View>
      )}
    </View>
  );
}

/** The first character of the merchant's name, for its round badge. */
function initial(name: string): string {
  return [...name.trim()][0]?.toUpperCase() ?? '·';
}
