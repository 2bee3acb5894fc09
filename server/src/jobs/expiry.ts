/** Order expiry: `active` → `cancel` once an order's time has passed (default 2 h, ORDER_TTL). */
import type { Logger } from 'pino';
import type { Clock } from '@kit/shared/clock';
import type { PrepayService } from '../orders/prepay-service';
import { startLoop, type Loop } from './loop';

export function startExpiryWorker(prepay: PrepayService, intervalMs: number, log: Logger, clock: Clock): Loop {
  return startLoop(
    'expiry',
    intervalMs,
    async () => {
      const n = await prepay.expireDue();
      if (n > 0) log.info({ expired: n }, 'orders expired');
      return n >= 500 ? 'more' : n > 0 ? 'worked' : undefined;
    },
    log,
    clock,
  );
}
