import type { PaymentChannel } from '@kit/shared';
/** What the service offers of the payments (`services.payments`); built in `services.ts`, the composition root. */
import type { ChannelOrders } from './channel-orders';
import type { NotificationService } from './notification-service';
import type { PaymentArgs } from './payment-args';
import type { PaymentStore } from './payment-store';
import type { RefundService } from './refund-service';
import type { Settlement } from './settlement';
import type { DuplicateStore } from './duplicate-store';

export interface Payments {
  /** 4.3–4.5 */
  args: PaymentArgs;
  /** 4.6 */
  refunds: RefundService;
  /** The channels' notifications. */
  notifications: NotificationService;
  channelOrders: ChannelOrders;
  settlement: Settlement;
  /** What the service knows of an order's payment: its channel orders, refund and second payments refunded automatically (operators and tests). */
  state(prepayId: string): Promise<{
    channelOrders: Awaited<ReturnType<PaymentStore['channelOrdersOf']>>;
    refund: Awaited<ReturnType<PaymentStore['refund']>> | null;
    duplicates: Awaited<ReturnType<DuplicateStore['ofOrder']>>;
  }>;
  /** When the given orders' refunds completed (Unix ms), for those whose refund did (the POS's list says when each was refunded). */
  refundsCompleted(prepayIds: readonly string[]): Promise<Map<string, number>>;
  /** The channel (4.7 `paymentChannel`) each given order was paid through, for those paid (the screens name the wallet). */
  paidChannels(prepayIds: readonly string[]): Promise<Map<string, PaymentChannel>>;
}
