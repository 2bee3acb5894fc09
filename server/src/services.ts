/**
 * The composition root: every service, job handler and worker of the service is built here, in
 * dependency order, from the parts it needs, passed in at construction. Nothing is attached to a
 * part afterwards; a feature folder holds classes (and, for the chain and profit sharing, a small
 * factory of its own parts), never the wiring of other features. `runtime.ts` starts what this
 * builds; the `kit` command uses the services without starting anything.
 */
import type { Logger } from 'pino';
import type { Clock } from '@kit/shared/clock';
import type { WalletCatalogue } from '@kit/shared';
import type { Config } from './config';
import type { DbHandle } from './db/connect';
import { logSinkOf } from './logger';
import type { SelfUrl } from './self-url';
import { AppStore } from './apps/app-store';
import { AppService } from './apps/app-service';
import { TableReplayGuard } from './apps/replay-guard';
import { MerchantStore } from './merchants/merchant-store';
import { MerchantService } from './merchants/merchant-service';
import { MerchantFacts } from './merchants/merchant-facts';
import { OrderEvents } from './orders/order-events';
import { OrderTransitions } from './orders/order-transitions';
import { PrepayStore } from './orders/prepay-store';
import { PrepayService } from './orders/prepay-service';
import { createChainServices, type ChainServices } from './chain/chain-services';
import { JobStore } from './jobs/job-store';
import { Jobs } from './jobs/jobs';
import { Metrics } from './metrics/metrics';
import { LoginThrottle } from './security/login-throttle';
import { DatabaseProbe } from './db/probe';
import { OutboundPolicy } from './security/outbound-url';
import { LoginThrottleStore } from './security/login-throttle-store';
import { CallbackStore } from './callbacks/callback-store';
import { CallbackService } from './callbacks/callback-service';
import { CallbackDelivery } from './callbacks/callback-delivery';
import { CallbackOperations } from './callbacks/callback-operations';
import { ChannelEndpoints } from './payments/providers/endpoints';
import { Providers, walletsOf } from './payments/providers/in-use';
import type { ProviderModule } from './payments/providers/provider';
import { PROVIDERS } from './payments/providers/registry';
import { ChannelOrders } from './payments/channel-orders';
import { NotificationService } from './payments/notification-service';
import { PaymentArgs } from './payments/payment-args';
import { PaymentFollower } from './payments/payment-follower';
import { CodeCancel } from './payments/code-cancel';
import { CodePayments } from './payments/code-payments';
import { CodePaymentFollow } from './payments/code-payment-follow';
import { PaymentStore } from './payments/payment-store';
import { RefundFollower } from './payments/refund-follower';
import { DuplicateRefundFollower } from './payments/duplicate-refund-follower';
import { DuplicatePayments } from './payments/duplicate-payments';
import { DuplicateStore } from './payments/duplicate-store';
import { RefundService } from './payments/refund-service';
import { Settlement } from './payments/settlement';
import type { Payments } from './payments/payment-services';
import { createProfitSharing } from './profit-sharing/ps-services';
import type { ProfitSharingService } from './profit-sharing/ps-service';
import { ReconStore } from './reconciliation/recon-store';
import { ReconciliationService } from './reconciliation/recon-service';
import { DailyReconciliation } from './reconciliation/daily-reconciliation';
import { playedBy, type Played } from './payments/providers/played';
import { channelSetup } from './payments/providers/setup';
import { ReconcileNow } from './reconciliation/reconcile-now';
import type { ComposedDevPlugin, DevPlugin } from './plugins/dev-plugin';
import { requestRules } from './http/body';
import { createMiniProgram, type MiniProgramServices } from './mini-program/mp-services';
import { startJobWorker, type JobKind } from './jobs/job-worker';
import type { Loop } from './jobs/loop';
import { startExpiryWorker } from './jobs/expiry';
import { startHousekeeping } from './jobs/housekeeping';
import { startReconcileScheduler } from './jobs/reconcile-scheduler';
import { startSealer } from './chain/sealer';
import { startAnchoring } from './chain/anchor/start';
import { checkRegistry, kitJobs } from './jobs/registry';
import { FollowUp } from './jobs/follow-up';

export interface Services {
  apps: AppService;
  merchants: MerchantService;
  prepay: PrepayService;
  events: OrderEvents;
  chain: ChainServices;
  jobs: Jobs;
  /** What `GET /metrics` reports; services call its typed methods (callback attempts, reconciliations). */
  metrics: Metrics;
  /** The brute-force limit every login goes through (merchants' logins use it already). */
  logins: LoginThrottle;
  /** Whether the database answers (`GET /health`). */
  database: DatabaseProbe;
  /** Where calls on a merchant's behalf may go (CALLBACK_ALLOW_PRIVATE): every URL a merchant gives is checked with it, every such call made through its agents. */
  outbound: OutboundPolicy;
  payments: Payments;
  /** 4.8 */
  profitSharing: ProfitSharingService;
  callbacks: CallbackService;
  /** The callback operations API (`/callbacks`): list, resend, recover. */
  callbackOps: CallbackOperations;
  /** Daily statement reconciliation (docs/reconciliation.md). */
  reconciliation: ReconciliationService;
  /** Its daily run: the scheduler adds the due days' jobs. */
  dailyReconciliation: DailyReconciliation;
  /** The mini-program code the platform makes for an order, and the access token it takes (docs/operations.md). */
  miniProgram: MiniProgramServices;
  /** The same run for one day on request (the console's "Reconcile now"). */
  reconcileNow: ReconcileNow;
  /** The development plug-in (the sandbox, when SANDBOX_ENABLED: `plugins/load.ts`) with its parts; absent in production. */
  dev?: ComposedDevPlugin;
  /** The providers the development plug-in plays, and the configuration they are built with (`payments/providers/played.ts`). */
  played: Played<Config>;
  /** The providers this service was given (`payments/providers/registry.ts`'s list unless the root was given another). */
  registered: readonly ProviderModule[];
  /** The wallets they speak for: the ways the API takes, the channels and parameters of 4.7 (`walletCatalogue`). */
  wallets: WalletCatalogue;
  /** This service's own URL (`self-url.ts`): where a development plug-in plays the platforms, the payer login's too. */
  selfUrl: SelfUrl;
  /** The queues the job workers run: the registry's (`jobs/registry.ts`) and a development plug-in's. */
  jobKinds: JobKind[];
  /** The one clock every part reads (design 7.1): the system clock, or a test's. */
  clock: Clock;
}

/** What the composition root builds from. */
export interface ServiceBase {
  config: Config;
  handle: DbHandle;
  masterKey: Buffer;
  log: Logger;
  selfUrl: SelfUrl;
  clock: Clock;
  plugin?: DevPlugin;
  /**
   * The providers (each with its wallet) the service speaks through: the registry's list
   * (`payments/providers/registry.ts`) unless the root is given another, as a test registers a wallet of its own.
   */
  providers?: readonly ProviderModule[];
}

/** A health check answers within this even when the database hangs (load balancers time out checks after a few seconds). */
const HEALTH_PROBE_MS = 2_000;

export function createServices({ config, handle, masterKey, log, selfUrl, clock, plugin, providers: registered = PROVIDERS }: ServiceBase): Services {
  const { db } = handle;
  // The wallets of the registered providers: what the API's ways and 4.7's channels and parameters are.
  const wallets = walletsOf(registered);

  // The base: metrics, apps, merchants, logins, the job queues.
  const metrics = new Metrics({ clock });
  const appStore = new AppStore(db);
  const apps = new AppService(appStore, masterKey, new TableReplayGuard(appStore), clock);
  const merchantStore = new MerchantStore(db, clock);
  const merchantFacts = new MerchantFacts(merchantStore, clock);
  const logins = new LoginThrottle(
    new LoginThrottleStore(db),
    { maxFailures: config.LOGIN_MAX_FAILURES, lockoutMs: config.LOGIN_LOCKOUT },
    log.child({ part: 'logins' }),
    metrics,
    clock,
  );
  const outbound = new OutboundPolicy(config.CALLBACK_ALLOW_PRIVATE);
  const merchants = new MerchantService(merchantStore, apps, merchantFacts, logins, outbound, clock, wallets);
  const jobs = new Jobs(new JobStore(db, handle.dialect, clock));
  const chain = createChainServices(config, handle, masterKey, apps, clock);

  // Orders and their callbacks.
  const events = new OrderEvents(clock);
  const prepayStore = new PrepayStore(db, clock);
  const transitions = new OrderTransitions(prepayStore, events);
  const callbackStore = new CallbackStore(db, jobs.store);
  const callbacks = new CallbackService(jobs, callbackStore);

  // Payments: channels, channel orders, settlement, refunds, then the prepay service whose expiry
  // closes the channel order first (the channel orders are its expiry guard).
  const plog = log.child({ part: 'payments' });
  const paymentStore = new PaymentStore(db, handle.dialect, clock);
  // The providers a development plug-in plays are handed its settings and its gateway (`played.ts`).
  const played = playedBy(config, plugin, registered);
  const endpoints = new ChannelEndpoints(played.config, selfUrl, plugin, played.ids);
  const providers = new Providers(played.config, endpoints, clock, plog, registered, wallets);
  const duplicates = new DuplicatePayments(new DuplicateStore(db, clock), jobs, plog, clock, metrics);
  const settlement = new Settlement(paymentStore, transitions, callbacks, jobs, duplicates, clock);
  const channelOrders = new ChannelOrders(
    paymentStore,
    providers,
    settlement,
    jobs,
    { querySchedule: config.PAYMENT_QUERY_SCHEDULE, channelTimeoutMs: config.PAY_GATEWAY_TIMEOUT },
    plog,
    clock,
    metrics,
  );
  const prepay = new PrepayService(
    prepayStore,
    merchantFacts,
    events,
    transitions,
    channelOrders,
    {
      orderTtlMs: config.ORDER_TTL,
      holdMs: config.WAIT_FOR_FINISH_HOLD,
    },
    clock,
  );
  const followOpts = { channelTimeoutMs: config.PAY_GATEWAY_TIMEOUT, querySchedule: config.PAYMENT_QUERY_SCHEDULE };
  const refunds = new RefundService(paymentStore, merchants, providers, jobs, followOpts, plog, clock);
  // The payer's payment code at the counter (7.4): charged at once, followed until paid or cancelled.
  const codeCancel = new CodeCancel(paymentStore, providers, jobs, plog, clock);
  const codes = new CodePayments(
    paymentStore,
    merchants,
    providers,
    channelOrders,
    settlement,
    jobs,
    codeCancel,
    duplicates.store,
    { confirmWaitMs: config.CODE_PAY_WAIT },
    plog,
    clock,
  );
  const codeFollow = new CodePaymentFollow(prepay, providers, channelOrders, codeCancel, followOpts, plog, clock);
  const payments: Payments = {
    args: new PaymentArgs(paymentStore, prepay, merchants, providers, channelOrders, clock, codes),
    refunds,
    notifications: new NotificationService(paymentStore, providers, settlement, plog, duplicates),
    channelOrders,
    settlement,
    state: async (prepayId) => ({
      channelOrders: await paymentStore.channelOrdersOf(prepayId),
      refund: (await paymentStore.refund(prepayId)) ?? null,
      duplicates: await duplicates.store.ofOrder(prepayId),
    }),
    refundsCompleted: (prepayIds) => paymentStore.refundsCompleted(prepayIds),
    paidChannels: (prepayIds) => paymentStore.paidChannels(prepayIds),
  };

  // Profit sharing and reconciliation, on top of the payments.
  const sharing = createProfitSharing(config, handle, { jobs, merchants, orders: prepay, providers, clock, metrics }, log);
  const rlog = log.child({ part: 'reconciliation' });
  const reconciliation = new ReconciliationService(
    new ReconStore(db, clock),
    providers,
    paymentStore,
    channelOrders,
    settlement,
    rlog,
    metrics,
    duplicates.store,
  );
  const ready = new Set(channelSetup(played.config, played.ids, registered).flatMap((c) => (c.missing.length ? [] : [c.channel])));
  const dailyReconciliation = new DailyReconciliation(
    reconciliation,
    jobs,
    { at: config.RECONCILE_AT, retrySchedule: config.RECONCILE_RETRY_SCHEDULE, configured: (channel) => ready.has(channel) },
    rlog,
  );

  // The mini-program's server side: the platform's codes for the POS display, one access token per deployment.
  const miniProgram = createMiniProgram(config, handle, masterKey, selfUrl, metrics, log, clock, plugin);

  // A development plug-in (the sandbox plays the payment platforms): only when one was loaded.
  const dev = plugin && { plugin, parts: plugin.compose({ config, handle, jobs, secretOf: (appId) => apps.secretOf(appId), requestRules, clock }) };

  const jobKinds = checkRegistry([
    ...kitJobs(config, {
      profitSharingFollower: sharing.follower,
      callbackDelivery: new CallbackDelivery(
        callbackStore,
        merchants,
        apps,
        { timeoutMs: config.CALLBACK_TIMEOUT, outbound, clock },
        log.child({ part: 'callbacks' }),
        metrics,
      ),
      paymentFollower: new FollowUp(
        new PaymentFollower(paymentStore, prepay, providers, channelOrders, followOpts, plog, clock, codeFollow),
        followOpts,
        metrics,
      ),
      refundFollower: new FollowUp(new RefundFollower(paymentStore, providers, refunds, settlement, followOpts, plog, clock), followOpts, metrics),
      duplicateRefundFollower: new FollowUp(new DuplicateRefundFollower(duplicates, paymentStore, providers, plog), followOpts, metrics),
      dailyReconciliation,
    }),
    ...(dev?.parts.jobs ?? []),
  ]);

  // What the metrics read when scraped.
  const sink = logSinkOf(log);
  metrics.readHeldCallsFrom(() => events.waiting);
  metrics.readDbStatementsFrom(() => handle.statements);
  if (sink) metrics.readLogStatsFrom(() => ({ dropped: sink.droppedTotal, bufferedBytes: sink.bufferedBytes }));
  metrics.countChainQueueWith(() => chain.stores.ledger.queueDepth());
  metrics.countOutboxWith(() => jobs.store.depth('callback'));
  const database = new DatabaseProbe(db, Math.min(config.DATABASE_STATEMENT_TIMEOUT, HEALTH_PROBE_MS));
  metrics.probeDatabaseWith(() => database.problem());

  return {
    apps,
    merchants,
    prepay,
    events,
    chain,
    jobs,
    metrics,
    logins,
    database,
    outbound,
    payments,
    profitSharing: sharing.service,
    callbacks,
    callbackOps: new CallbackOperations(callbackStore, merchants, jobs),
    reconciliation,
    dailyReconciliation,
    miniProgram,
    reconcileNow: new ReconcileNow(reconciliation, rlog),
    dev,
    played,
    registered,
    wallets,
    selfUrl,
    jobKinds,
    clock,
  };
}

/** One piece of background work: a loop, or the worker of one queue. */
export interface BackgroundWork {
  name: string;
  /** Starts it; undefined when it is off (anchoring without its settings). */
  start(): Loop | undefined;
}

/**
 * The background work of this process, built from the services: `runtime.ts` starts it once the
 * service listens (a job calling a platform a plug-in plays needs the service's own URL) and stops it
 * before the database closes. The `kit` command starts none.
 */
export function backgroundWork(config: Config, handle: DbHandle, services: Services, log: Logger): BackgroundWork[] {
  const { metrics, clock } = services;
  return [
    { name: 'expiry', start: () => startExpiryWorker(services.prepay, config.EXPIRY_SWEEP_INTERVAL, log, clock) },
    {
      name: 'housekeeping',
      start: () =>
        startHousekeeping(services.apps, services.logins, services.jobs.store, services.jobKinds, log, clock, [
          // A code is kept while its order can be paid; an hour more for a display still showing it.
          () => services.miniProgram.codes.purge(clock.now() - config.ORDER_TTL - 3_600_000),
        ]),
    },
    { name: 'reconcile.schedule', start: () => startReconcileScheduler(services.dailyReconciliation, log, clock) },
    ...services.jobKinds.map((k) => ({
      name: k.handler.queue,
      start: () => startJobWorker(services.jobs, k, log.child({ part: k.handler.queue }), clock),
    })),
    ...(config.CHAIN_SEALER
      ? [
          {
            name: 'chain.seal',
            start: () =>
              startSealer(services.chain.sealer, config.CHAIN_SEAL_INTERVAL, log, clock, (ms, acceptedAt, failed) =>
                metrics.chainSealed(ms, acceptedAt, failed, clock.now()),
              ),
          },
        ]
      : []),
    { name: 'chain.anchor', start: () => startAnchoring(config, handle, services, log) },
  ];
}
