/** Builds the payment, profit-sharing, callback and sandbox parts and the job handlers that keep money paths converging. */
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { DbHandle } from '../db/connect';
import type { AppService } from '../apps/app-service';
import type { MerchantService } from '../merchants/merchant-service';
import type { PrepayService } from '../orders/prepay-service';
import { CallbackStore } from '../callbacks/callback-store';
import { CallbackService } from '../callbacks/callback-service';
import { CallbackDelivery } from '../callbacks/callback-delivery';
import type { Jobs } from '../jobs/jobs';
import type { Metrics } from '../metrics/metrics';
import { createSandbox, type Sandbox } from '../sandbox/sandbox';
import type { JobHandler } from '../workers/job-worker';
import { Gateways, cardNetworkAdapter, socialNativeAdapter } from './channels';
import { Channels } from './channel-gateway';
import { ChannelOrders } from './channel-orders';
import { NotificationService } from './notification-service';
import { PaymentArgs } from './payment-args';
import { PaymentReconciler } from './payment-reconciler';
import { PaymentStore } from './payment-store';
import { RefundFollower } from './refund-follower';
import { RefundService } from './refund-service';
import { Settlement } from './settlement';
import { createProfitSharing } from '../profit-sharing/ps-services';
import type { ProfitSharingService } from '../profit-sharing/ps-service';

export interface Payments {
  /** 4.3–4.5 */
  args: PaymentArgs;
  /** 4.6 */
  refunds: RefundService;
  /** The channels' notifications. */
  notifications: NotificationService;
  channelOrders: ChannelOrders;
  settlement: Settlement;
  gateways: Gateways;
  /** What the service knows of an order's payment: its channel orders and refund (operators and tests). */
  state(
    prepayId: string,
  ): Promise<{ channelOrders: Awaited<ReturnType<PaymentStore['channelOrdersOf']>>; refund: Awaited<ReturnType<PaymentStore['refund']>> | null }>;
}

export interface PaymentServices {
  payments: Payments;
  /** 4.8 */
  profitSharing: ProfitSharingService;
  callbacks: CallbackService;
  /** Present when SANDBOX_ENABLED. */
  sandbox?: Sandbox;
  /** The handlers the job workers run, one per queue. */
  jobHandlers: JobHandler[];
}

export function createPaymentServices(
  config: Config,
  handle: DbHandle,
  core: { apps: AppService; merchants: MerchantService; prepay: PrepayService; jobs: Jobs; metrics: Metrics },
  log: Logger,
): PaymentServices {
  const { jobs, prepay, merchants, metrics } = core;
  const plog = log.child({ part: 'payments' });
  const callbackStore = new CallbackStore(handle.db);
  const callbacks = new CallbackService(jobs, callbackStore);
  const delivery = new CallbackDelivery(
    callbackStore,
    merchants,
    core.apps,
    { retrySchedule: config.CALLBACK_RETRY_SCHEDULE, timeoutMs: config.CALLBACK_TIMEOUT },
    log.child({ part: 'callbacks' }),
    metrics,
  );

  const store = new PaymentStore(handle.db);
  const gateways = new Gateways(config);
  const channels = new Channels([socialNativeAdapter(config, gateways), cardNetworkAdapter(config, gateways)], gateways);
  const settlement = new Settlement(store, prepay, callbacks, jobs, plog);
  const channelOrders = new ChannelOrders(
    store,
    channels,
    settlement,
    jobs,
    { signType: config.PAY_SIGN_TYPE, querySchedule: config.PAYMENT_QUERY_SCHEDULE },
    plog,
    metrics,
  );
  prepay.setExpiryGuard(channelOrders);
  const refundOpts = { channelTimeoutMs: config.PAY_GATEWAY_TIMEOUT, querySchedule: config.PAYMENT_QUERY_SCHEDULE };
  const refunds = new RefundService(store, merchants, channels, jobs, refundOpts, plog);

  const payments: Payments = {
    args: new PaymentArgs(store, prepay, merchants, channels, channelOrders),
    refunds,
    notifications: new NotificationService(store, channels, settlement, plog),
    channelOrders,
    settlement,
    gateways,
    state: async (prepayId) => ({ channelOrders: await store.channelOrdersOf(prepayId), refund: (await store.refund(prepayId)) ?? null }),
  };
  const sandbox = config.SANDBOX_ENABLED ? createSandbox(config, handle, jobs) : undefined;
  const sharing = createProfitSharing(config, handle, { jobs, merchants, channels, metrics }, log);
  const jobHandlers: JobHandler[] = [
    sharing.follower,
    delivery,
    new PaymentReconciler(
      store,
      prepay,
      channels,
      channelOrders,
      { querySchedule: config.PAYMENT_QUERY_SCHEDULE, channelTimeoutMs: config.PAY_GATEWAY_TIMEOUT },
      plog,
      metrics,
    ),
    new RefundFollower(store, channels, refunds, settlement, refundOpts, plog, metrics),
    ...(sandbox ? [sandbox.notifier] : []),
  ];
  return { payments, profitSharing: sharing.service, callbacks, sandbox, jobHandlers };
}
