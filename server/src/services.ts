/** Builds the services from the database handle; the one place they are wired together. */
import type { Logger } from 'pino';
import type { Config } from './config';
import type { DbHandle } from './db/connect';
import { AppStore } from './apps/app-store';
import { AppService } from './apps/app-service';
import { TableReplayGuard } from './apps/replay-guard';
import { MerchantStore } from './merchants/merchant-store';
import { MerchantService } from './merchants/merchant-service';
import { MerchantFacts } from './merchants/merchant-facts';
import { OrderEvents } from './orders/order-events';
import { PrepayStore } from './orders/prepay-store';
import { PrepayService } from './orders/prepay-service';
import { createPaymentServices, type PaymentServices } from './payments/payment-services';
import { createChainServices, type ChainServices } from './chain/chain-services';
import { JobStore } from './jobs/job-store';
import { Jobs } from './jobs/jobs';
import { Metrics } from './metrics/metrics';

export interface Services extends PaymentServices {
  apps: AppService;
  merchants: MerchantService;
  prepay: PrepayService;
  events: OrderEvents;
  chain: ChainServices;
  jobs: Jobs;
  /** What `GET /metrics` reports; services call its typed methods (callback attempts, reconciliations). */
  metrics: Metrics;
}

export function createServices(config: Config, handle: DbHandle, masterKey: Buffer, _log: Logger): Services {
  const { db } = handle;
  const events = new OrderEvents();
  const merchantStore = new MerchantStore(db);
  const appStore = new AppStore(db);
  const apps = new AppService(appStore, masterKey, new TableReplayGuard(appStore));
  const merchantFacts = new MerchantFacts(merchantStore);
  const metrics = new Metrics();
  const base = {
    metrics,
    apps,
    events,
    jobs: new Jobs(new JobStore(db, handle.dialect)),
    merchants: new MerchantService(merchantStore, apps, merchantFacts),
    chain: createChainServices(config, handle, masterKey, apps),
    prepay: new PrepayService(new PrepayStore(db), merchantFacts, events, {
      orderTtlMs: config.ORDER_TTL,
      holdMs: config.WAIT_FOR_FINISH_HOLD,
    }),
  };
  return { ...base, ...createPaymentServices(config, handle, base, _log) };
}
