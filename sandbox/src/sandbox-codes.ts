/**
 * Payment codes (付款码, 7.4) in the sandbox: the codes a payer's wallet shows, and the social
 * platform's side of charging one (API v3's `codepay` and `reverse` read their JSON into this,
 * protocol v2's `micropay` and `secapi/pay/reverse` their XML). A sandbox code says how its payment
 * goes by its third digit, so that a tester (or a test) picks the outcome by the code it types in:
 *
 * - `pay`: paid at once;
 * - `confirm`: the payer confirms on the phone (`USERPAYING`); confirmed by the payer page's button
 *   (`POST /sandbox/payment-code/confirm`), or on its own after 10 s;
 * - `never`: the payer never confirms;
 * - `balance`: refused, the balance is short;
 * - `silent`: the money is taken and the call is never answered (the kit must cancel, which gives it back).
 *
 * A code is good once: a code used before is refused, as the platforms refuse a code the payer did
 * not refresh. The fault `reverseRecalls` makes the platform ask for a code's first reverses again.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '@kit/shared/clock';
import { compactTime } from './protocol/china-time';
import { randomDigits } from './digits';
import type { Faults } from './sandbox-faults-shape';
import type { SandboxOrder, SandboxStore } from './sandbox-store';

export const CODE_BEHAVIOURS = ['pay', 'confirm', 'never', 'balance', 'silent'] as const;
export type CodeBehaviour = (typeof CODE_BEHAVIOURS)[number];

/** A `confirm` code's payer confirms this long after the code was charged, on the service's clock. */
export const CONFIRM_AFTER_MS = 10_000;

/**
 * An 18-digit payment code of a wallet that goes the way `behaviour` says: `prefix` is its wallet's
 * first two digits (each stand-in says its wallet's: `codes` of `stand-ins/`).
 */
export function issuePaymentCode(prefix: string, behaviour: CodeBehaviour): string {
  return `${prefix}${CODE_BEHAVIOURS.indexOf(behaviour)}${randomDigits(15)}`;
}

/** How a code the sandbox issued goes; any other code of the wallet's shape pays at once. */
export function behaviourOf(code: string): CodeBehaviour {
  return CODE_BEHAVIOURS[Number(code[2])] ?? 'pay';
}

/** The social platform's payment codes: 18 digits starting 10–15. */
export const SOCIAL_CODE = /^1[0-5]\d{16}$/;

/** A refusal of a code payment, in the platform's words. */
export class CodeRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What charging a code gave: the order, and whether the call is answered at all. */
export interface Charged {
  order: SandboxOrder;
  answered: boolean;
}

export class SandboxCodes {
  /** How many reverses each order was asked for (by prepay id), for the fault `reverseRecalls`. */
  private readonly reversesAsked = new Map<string, number>();

  constructor(
    private readonly store: SandboxStore,
    private readonly clock: Clock,
    private readonly faults: () => Pick<Faults, 'reverseRecalls'>,
  ) {}

  /**
   * Charges a social payment code for a new order (`fields`: the order as `codepay` named it). The
   * same `out_trade_no` again answers the order as it is.
   */
  async charge(
    realm: string,
    f: { appid: string; mch_id: string; sub_appid?: string; sub_mch_id: string; out_trade_no: string; body: string; total_fee: number; device_info?: string },
    authCode: string,
    signType: string,
  ): Promise<Charged> {
    const existing = await this.store.orderByTradeNo(realm, f.mch_id, f.out_trade_no);
    if (existing) return { order: await this.ripen(existing), answered: true };
    if (!SOCIAL_CODE.test(authCode)) throw new CodeRefused(400, 'AUTH_CODE_INVALID', '付款码无效，请使用微信付款码（18 位，以 10–15 开头）');
    if (await this.store.orderByCodeToken(authCode)) throw new CodeRefused(403, 'AUTHCODEEXPIRE', '二维码已过期，请用户在微信上刷新后再试');
    const behaviour = behaviourOf(authCode);
    const now = this.clock.now();
    const paid = behaviour === 'pay' || behaviour === 'silent';
    const order: SandboxOrder = {
      prepay_id: `wx${compactTime(now)}${randomBytes(10).toString('hex')}`,
      realm,
      // The code itself: a code is good once.
      code_token: authCode,
      appid: f.appid,
      mch_id: f.mch_id,
      sub_appid: f.sub_appid ?? null,
      sub_mch_id: f.sub_mch_id,
      device_info: f.device_info ?? null,
      out_trade_no: f.out_trade_no,
      body: f.body,
      total_fee: f.total_fee,
      trade_type: 'MICROPAY',
      openid: null,
      sub_openid: null,
      notify_url: '',
      sign_type: signType,
      profit_sharing: 0,
      time_expire: null,
      state: paid ? 'SUCCESS' : behaviour === 'balance' ? 'PAYERROR' : 'USERPAYING',
      transaction_id: paid ? transactionIdAt(now) : null,
      paid_at: paid ? now : null,
      unfrozen_at: null,
      created_at: now,
      updated_at: now,
    };
    await this.store.insertOrder(order);
    if (behaviour === 'balance') throw new CodeRefused(403, 'NOTENOUGH', '用户的零钱余额不足，请用户换卡支付');
    return { order, answered: behaviour !== 'silent' };
  }

  /** A `confirm` code's order whose payer has confirmed by now (10 s after it was charged): paid. */
  async ripen(o: SandboxOrder): Promise<SandboxOrder> {
    if (o.trade_type !== 'MICROPAY' || o.state !== 'USERPAYING' || !o.code_token) return o;
    if (behaviourOf(o.code_token) !== 'confirm' || this.clock.now() < o.created_at + CONFIRM_AFTER_MS) return o;
    return (await this.confirm(o)) ?? o;
  }

  /** The payer confirms on the phone: a code payment waiting for it is paid. Undefined when it was not waiting. */
  async confirm(o: SandboxOrder): Promise<SandboxOrder | undefined> {
    const now = this.clock.now();
    const patch = { transaction_id: transactionIdAt(now), paid_at: now };
    if (!(await this.store.moveOrder(o.prepay_id, 'USERPAYING', 'SUCCESS', patch))) return undefined;
    return { ...o, ...patch, state: 'SUCCESS' };
  }

  /** The payer confirms on the phone a code payment waiting under `authCode`; false when none was waiting. */
  async confirmCode(authCode: string): Promise<boolean> {
    const o = await this.store.orderByCodeToken(authCode);
    return !!o && o.trade_type === 'MICROPAY' && !!(await this.confirm(o));
  }

  /**
   * Undoes a code payment whatever its state (撤销): a paid one's money goes back to the payer. `recall`:
   * the platform asks for the reverse again and did nothing (the fault `reverseRecalls`).
   */
  async reverse(o: SandboxOrder): Promise<{ recall: boolean }> {
    const asked = (this.reversesAsked.get(o.prepay_id) ?? 0) + 1;
    this.reversesAsked.set(o.prepay_id, asked);
    if (asked <= this.faults().reverseRecalls) return { recall: true };
    for (const from of ['USERPAYING', 'SUCCESS', 'PAYERROR'] as const) {
      if (await this.store.moveOrder(o.prepay_id, from, 'REVOKED')) break;
    }
    return { recall: false };
  }
}

const transactionIdAt = (now: number) => `4200${compactTime(now).slice(0, 8)}${randomDigits(16)}`;
