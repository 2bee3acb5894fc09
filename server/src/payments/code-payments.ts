/**
 * The payer's payment code at the counter (付款码, 7.4): the cashier scans the code the payer's wallet
 * shows, and the kit charges it through the wallet the code's digits name. The channel order and
 * the follow-up job that ends it are written before the platform is asked, so that whatever happens
 * next (an answer, a refusal, no answer, a crash) the trade ends one way: paid and recorded, or
 * cancelled at the platform, which gives back money taken in the same moment
 * (`code-payment-follow.ts`). The order stays payable after a refused or cancelled code.
 */
import type { Clock } from '@kit/shared/clock';
import type { Logger } from 'pino';
import { KitError, PAY_VERSION, type CodePayArgs } from '@kit/shared';
import type { PayChannelOrdersTable } from '../db/schema';
import type { Jobs } from '../jobs/jobs';
import type { MerchantService } from '../merchants/merchant-service';
import type { ChannelOrders } from './channel-orders';
import type { DuplicateStore } from './duplicate-store';
import type { CodeCancel } from './code-cancel';
import type { PaymentStore } from './payment-store';
import type { Providers } from './providers/in-use';
import { refusalText, type CodePayment, type OrderForChannel, type PaymentCode, type PaymentProvider } from './providers/provider';
import type { Settlement } from './settlement';

/** How often a code the payer is confirming is asked about: the platforms' advice (every 5 s, up to 30 s). */
export const CODE_QUERY_EVERY_MS = 5_000;

/** The details of a `channel_unavailable` that ended in the code's cancel (the payer is not charged), for a screen to say so. */
export const CODE_CANCELLED = { codeCancelled: true } as const;

export interface CodePaymentOptions {
  /** CODE_PAY_WAIT: how long the payer may take to confirm. */
  confirmWaitMs: number;
}

type PayableOrder = OrderForChannel & { sub_merchant_id: string };

export class CodePayments {
  constructor(
    private readonly store: PaymentStore,
    private readonly merchants: MerchantService,
    private readonly providers: Providers,
    private readonly channelOrders: ChannelOrders,
    private readonly settlement: Settlement,
    private readonly jobs: Jobs,
    private readonly cancels: CodeCancel,
    private readonly duplicates: DuplicateStore,
    private readonly opts: CodePaymentOptions,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * The provider that charges `authCode`: the wallet its digits name. Any other code is refused here,
   * before an order is read or a platform asked.
   */
  providerOf(authCode: string): PaymentProvider & { codePayment: CodePayment } {
    const wallets = this.providers.wallets;
    const wallet = wallets.walletOfPaymentCode(authCode);
    if (!wallet?.paymentCode)
      throw new KitError('invalid_request', `authCode: not a payment code of a wallet this kit takes (${wallets.paymentCodesInWords()})`);
    const channel = wallet.paymentCode.channel;
    const provider = this.providers.has(channel) ? this.providers.get(channel) : undefined;
    if (!provider?.codePayment) throw new KitError('channel_unavailable', `payment channel ${channel} takes no payment codes here`);
    return provider as PaymentProvider & { codePayment: CodePayment };
  }

  /** Charges the code for a payable order: `paid`, or `waiting` while the payer confirms on the phone. */
  async pay(
    provider: PaymentProvider & { codePayment: CodePayment },
    order: PayableOrder,
    code: PaymentCode,
  ): Promise<{ version: typeof PAY_VERSION; status: 'success'; args: CodePayArgs }> {
    const merchant = provider.merchant(await this.merchants.effectivePaymentParams(order.sub_merchant_id, provider.channel), 'code');
    const co = await this.channelOrders.forCode(order, provider, merchant, this.clock.now() + this.opts.confirmWaitMs);
    const answer = (result: CodePayArgs['result']) => ({ version: PAY_VERSION, status: 'success' as const, args: { result, channel: provider.channel } });
    let outcome;
    try {
      outcome = await provider.codePayment.pay(co, order, { ...code, storeId: order.sub_merchant_id });
    } catch (e) {
      if (!(e instanceof KitError)) throw e;
      // No answer, or one that says nothing of the money: the trade is cancelled, which gives back whatever was taken.
      const ended = await this.cancels.now(co);
      this.log.warn(
        { prepayId: co.prepay_id, outTradeNo: co.out_trade_no, err: e.message, ended },
        'payment code: no outcome from the platform; cancelling it',
      );
      if (ended === 'paid') return this.afterRace(co, answer);
      throw new KitError(
        'channel_unavailable',
        `the platform gave no outcome for the payment code (${e.message}); the payment ${ended === 'cancelled' ? 'was cancelled' : 'is being cancelled'}, so the payer is not charged: scan a fresh code`,
        CODE_CANCELLED,
      );
    }
    if (!outcome.ok) {
      // Refused: nothing was taken; the order stays payable by another code or way.
      await this.store.db.transaction().execute(async (trx) => {
        await this.store.moveChannelOrder(trx, co.out_trade_no, ['creating'], 'failed');
        await this.jobs.finish(trx, 'payment.reconcile', co.out_trade_no, 'refused');
      });
      const { code, meaning } = outcome.refusal;
      if (meaning === 'request_refused')
        throw new KitError(
          'channel_error',
          `the wallet refused the kit's request for the payment code (${refusalText(outcome.refusal, ': ')}): nothing was charged; the merchant's payment settings need checking, another code would be refused the same way`,
        );
      throw new KitError('payment_code_refused', `the wallet refused the payment code: ${refusalText(outcome.refusal, ': ')}`, { refusal: { code, meaning } });
    }
    if (outcome.paid) {
      if (await this.settlement.recordPayment(co, outcome.paid, 'answer')) return answer('paid');
      return this.afterRace(co, answer);
    }
    // The payer confirms on the phone: asked about until CODE_PAY_WAIT, then cancelled (the follow-up's).
    const opened = await this.store.db.transaction().execute(async (trx) => {
      if (!(await this.store.moveChannelOrder(trx, co.out_trade_no, ['creating'], 'open'))) return false;
      await this.jobs.enqueue(
        trx,
        { queue: 'payment.reconcile', key: co.out_trade_no, ref: co.prepay_id, at: this.clock.now() + CODE_QUERY_EVERY_MS },
        'rearm',
      );
      return true;
    });
    if (opened) return answer('waiting');
    // The follow-up ended it while the platform was answering: paid (its query found it), or cancelled.
    return this.afterRace(co, answer);
  }

  /**
   * A "paid" answer this call did not record: the follow-up recorded it first (paid), the order was
   * paid already through another way (this payment is a second one, refunded automatically), or the
   * follow-up had cancelled the code before the answer came (the cancel gives the money back).
   */
  private async afterRace<T>(co: PayChannelOrdersTable, answer: (r: 'paid') => T): Promise<T> {
    const now = await this.store.channelOrder(co.out_trade_no);
    if (now?.state !== 'paid')
      throw new KitError(
        'channel_unavailable',
        'the payment code was cancelled before its answer came, so the payer is not charged: scan a fresh code',
        CODE_CANCELLED,
      );
    if (await this.duplicates.byChannelOrder(co.out_trade_no))
      throw new KitError('order_not_active', `prepay order "${co.prepay_id}" was paid already: this payment is refunded automatically`);
    return answer('paid');
  }
}
