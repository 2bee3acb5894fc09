/** Builds profit sharing (4.8) on top of the payment parts: its service and its follow-up job handler. */
import type { Clock } from '@kit/shared/clock';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { DbHandle } from '../db/connect';
import type { Jobs } from '../jobs/jobs';
import type { Metrics } from '../metrics/metrics';
import type { MerchantService } from '../merchants/merchant-service';
import type { PrepayService } from '../orders/prepay-service';
import type { Providers } from '../payments/providers/in-use';
import { PaymentStore } from '../payments/payment-store';
import { PsChannel } from './ps-channel';
import { ProfitSharingFollower } from './ps-follower';
import { FollowUp } from '../jobs/follow-up';
import { ProfitSharingService } from './ps-service';
import { PsStore } from './ps-store';

export function createProfitSharing(
  config: Config,
  handle: DbHandle,
  deps: { jobs: Jobs; merchants: MerchantService; orders: PrepayService; providers: Providers; clock: Clock; metrics?: Metrics },
  log: Logger,
) {
  const store = new PsStore(handle.db, deps.clock);
  const payments = new PaymentStore(handle.db, handle.dialect, deps.clock);
  const channel = new PsChannel(
    store,
    deps.orders,
    deps.providers,
    deps.jobs,
    { querySchedule: config.PROFIT_SHARING_QUERY_SCHEDULE },
    log.child({ part: 'profit-sharing' }),
  );
  const service = new ProfitSharingService(store, payments, deps.merchants, channel, deps.jobs, { channelTimeoutMs: config.PAY_GATEWAY_TIMEOUT });
  const timeouts = { channelTimeoutMs: config.PAY_GATEWAY_TIMEOUT };
  const follower = new FollowUp(new ProfitSharingFollower(store, payments, channel, timeouts), timeouts, deps.metrics);
  return { service, follower };
}
