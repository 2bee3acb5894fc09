/** Builds the payment, callback and sandbox services (called from `createServices`). */
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { DbHandle } from '../db/connect';
import type { AppService } from '../apps/app-service';
import type { MerchantService } from '../merchants/merchant-service';
import type { OrderEvents } from '../orders/order-events';
import type { PrepayService } from '../orders/prepay-service';
import { CallbackStore } from '../callbacks/callback-store';
import { CallbackService } from '../callbacks/callback-service';
import { SandboxStore } from '../sandbox/sandbox-store';
import { SandboxService } from '../sandbox/sandbox-service';
import { Gateways, cardNetworkAdapter, socialNativeAdapter } from './channels';
import { PaymentStore } from './payment-store';
import { PaymentService } from './payment-service';

export interface PaymentServices {
  payments: PaymentService;
  callbacks: CallbackService;
  /** Present when SANDBOX_ENABLED. */
  sandbox?: SandboxService;
}

export function createPaymentServices(
  config: Config,
  handle: DbHandle,
  core: { apps: AppService; merchants: MerchantService; prepay: PrepayService; events: OrderEvents },
  log: Logger,
): PaymentServices {
  const callbacks = new CallbackService(
    new CallbackStore(handle.db, handle.dialect),
    core.merchants,
    core.apps,
    { retrySchedule: config.CALLBACK_RETRY_SCHEDULE, timeoutMs: config.CALLBACK_TIMEOUT },
    log.child({ part: 'callbacks' }),
  );
  const gateways = new Gateways(config);
  const payments = new PaymentService(
    new PaymentStore(handle.db),
    core.prepay,
    core.merchants,
    callbacks,
    core.events,
    [socialNativeAdapter(config, gateways), cardNetworkAdapter(config, gateways)],
    gateways,
    { signType: config.PAY_SIGN_TYPE },
    log.child({ part: 'payments' }),
  );
  const sandbox = config.SANDBOX_ENABLED ? new SandboxService(new SandboxStore(handle.db, handle.dialect), config, log.child({ part: 'sandbox' })) : undefined;
  return { payments, callbacks, sandbox };
}
