/**
 * The payment-provider contract (design 6.1, docs/architecture.md "Adding a wallet"): what the
 * payment domain (payments, refunds, the followers, profit sharing, reconciliation, the routes) may
 * ask of a wallet or protocol, in the kit's own words. A provider owns its protocol: its requests,
 * signatures, field names, error codes, notification bodies and answers never leave its folder
 * (`providers/<provider>/`); it hands the domain facts (paid / unpaid / closed, amounts in cents,
 * transaction and refund ids, whether a refusal is worth retrying). Optional capabilities (profit
 * sharing, the daily bill) are asked for by capability, never by provider name.
 *
 * This file imports no provider, and nothing here imports the service's configuration
 * (`config.ts` builds its schema from the providers' settings sections, so the arrows run one way).
 */
import type { Clock } from '@kit/shared/clock';
import type { z } from 'zod';
import type { AppPayArgs, ChannelParams, MiniProgramPayArgs, PaymentChannel, ReceiverResult, WalletDeclaration, WayDeclaration } from '@kit/shared';
import type { PayChannelOrdersTable, PayRefundsTable } from '../../db/schema';

/**
 * How the payer pays: a code to scan (4.3), the kit's mini-program inside the social app (4.4), an
 * app (4.5); a wallet's own ways (6.3): the kit's mini-program inside that wallet (`walletMini`, the
 * payer named by the wallet's open id) and a payment page opened in the wallet's browser (`wap`);
 * and the payer's payment code scanned at the counter (`code`, 7.4).
 */
export type PaymentFlow = 'scan' | 'miniProgram' | 'app' | 'walletMini' | 'wap' | 'code';

/**
 * The trade type column of a channel order keeps the names the first protocol gave the flows (the
 * rows written before this contract say them); the column's values, not a protocol's words. One
 * value per flow, whichever provider takes it (the column is read with the channel).
 */
export const FLOW_COLUMN: Record<PaymentFlow, string> = {
  scan: 'NATIVE',
  miniProgram: 'JSAPI',
  app: 'APP',
  walletMini: 'WALLET_MINI',
  wap: 'WAP',
  code: 'MICROPAY',
};

export function flowOf(column: string): PaymentFlow {
  const flow = (Object.keys(FLOW_COLUMN) as PaymentFlow[]).find((f) => FLOW_COLUMN[f] === column);
  if (!flow) throw new Error(`unknown trade type column value ${column}`);
  return flow;
}

/**
 * The merchant a channel order is placed for, as the provider names it at its platform (stored as
 * the order's `merchant_json`). Opaque to the domain: it compares and stores it, never reads it.
 */
export type MerchantRef = Record<string, string>;

/** What the provider's order call needs to know of the prepay order. */
export interface OrderForChannel {
  prepay_id: string;
  display_name: string;
  total_cents: number;
  expire_at: number;
}

/** What a call is about: the provider decides by it which refusals are worth retrying. */
export type CallKind = 'order' | 'refund' | 'profitSharing';

/**
 * The platform refused a call (it answered, and said no). `meaning` is the kit's reading of the
 * refusals the domain acts on; `code` and `message` are the platform's own, kept for people (logs,
 * `last_error`, error messages), never compared by the domain.
 */
export interface Refusal {
  call: CallKind;
  /**
   * `code_unusable`, `payer_cannot_pay`: a payment code's refusals (7.4): refresh the code; pay another way.
   * `request_refused`: the platform refused the kit's request itself (its parameters, signature or the
   * merchant's rights), whatever the payer does: the merchant's settings or the kit need looking at.
   */
  meaning: 'not_found' | 'closed' | 'paid' | 'code_unusable' | 'payer_cannot_pay' | 'request_refused' | 'other';
  code: string;
  message: string;
}

/** An answer of the platform: the facts, or its refusal. Unreachable platforms throw `channel_unavailable`. */
export type Outcome<T> = ({ ok: true } & T) | { ok: false; refusal: Refusal };

/** A refusal as people read it: the platform's code and message. */
export const refusalText = (r: Refusal, separator = ' '): string => `${r.code}${separator}${r.message}`.trim();

/** What a scan-code order placed gives (4.3's `args` are the platform's answer, as the API documents them). */
export interface Placed {
  channelPrepayId: string | null;
  codeUrl: string | null;
  /** 4.3's `args`, stored with the channel order. */
  scanArgs: Record<string, string>;
}

/** What a close says, beyond "closed". */
export interface Closed {
  /**
   * Unix ms until which the platform may still take a payment of the order just closed: its close
   * changed nothing there (an order the platform does not hold yet, which a payer can still open
   * until the expiry it was placed with). Absent: nothing can be paid through it any more.
   */
  payableUntil?: number;
}

/** A channel order's state at the platform. */
export type PaymentState = 'paid' | 'refunded' | 'unpaid' | 'paying' | 'closed' | 'revoked' | 'failed';

export interface PaidFacts {
  transactionId: string;
  /** Unix ms the platform says the payer paid. */
  paidAt: number;
}

/** What an order query says. */
export interface PaymentFacts {
  state: PaymentState;
  transactionId: string | null;
  amountCents: number | null;
  /** Unix ms; when the platform says none, the time it was learned. */
  paidAt: number;
  /** The platform's own word for the state, for messages. */
  stateText: string;
  /** Why the answer does not match the order it was asked about (merchant, amount…), or null. */
  mismatch: string | null;
}

/** What a refund query says of one refund. */
export interface RefundFacts {
  /** False when the answer does not list the refund asked about. */
  listed: boolean;
  state: 'succeeded' | 'processing' | 'failed';
  refundId: string | null;
  amountCents: number | null;
  /** The platform's own word for the state (kept in the refund's `last_error` when it failed). */
  stateText: string;
}

/** The request of a notification, as it arrived. */
export interface RawNotification {
  header(name: string): string | undefined;
  body: Buffer;
}

/** What a notification's reader may look up: the kit's records of this provider's channel only. */
export interface NotificationLookup {
  channelOrder(orderNo: string): Promise<PayChannelOrdersTable | undefined>;
  refund(refundNo: string): Promise<PayRefundsTable | undefined>;
}

/** A notification read, verified and checked against the kit's record it names. */
export type KitEvent =
  | { event: 'paid'; order: PayChannelOrdersTable; facts: PaidFacts }
  /** A notification of a payment that failed: acknowledged, changes nothing. */
  | { event: 'not_paid' }
  | { event: 'refund'; refund: PayRefundsTable; outcome: 'succeeded' | 'failed'; refundId: string | null; stateText: string }
  | { event: 'refused'; reason: string; orderNo?: string };

/** The HTTP answer a platform expects to a notification. */
export interface NotificationAnswer {
  status: number;
  type?: string;
  /** Undefined: no body. */
  body?: string | object;
}

export interface NotificationReader {
  read(kind: 'pay' | 'refund', req: RawNotification, lookup: NotificationLookup): Promise<KitEvent>;
  /** `ack` stops the platform's repeats; `refused` and `failed` (our own fault) make it repeat. */
  answer(outcome: 'ack' | 'refused' | 'failed', message: string): NotificationAnswer;
}

/** A receiver of profit sharing (4.8). */
export interface Receiver {
  type: string;
  account: string;
  name?: string | null;
  relationType: string;
  customRelation?: string | null;
}

export interface SplitShare {
  type: string;
  account: string;
  amountCents: number;
  description: string;
}

export interface SplitFacts {
  channelOrderId: string | null;
  finished: boolean;
  receivers: Array<{ type: string; account: string; result: ReceiverResult; failReason?: string; finishedAt?: number }>;
}

/** The capability of sharing a paid order's amount with receivers (4.8). */
export interface ProfitSharing {
  /** The merchant as the platform names it from its payment parameters; undefined when they name no account there. */
  merchantFor(params: Partial<ChannelParams[PaymentChannel]>): MerchantRef | undefined;
  /** The account at the platform receivers are added for (one list per account). */
  accountOf(merchant: MerchantRef): string;
  addReceiver(merchant: MerchantRef, receiver: Receiver): Promise<Outcome<object>>;
  removeReceiver(merchant: MerchantRef, receiver: { type: string; account: string }): Promise<Outcome<object>>;
  /** One split; with `finish`, the platform also releases what is left. The same `splitNo` is the same split there. */
  split(co: PayChannelOrdersTable, splitNo: string, shares: SplitShare[], finish: boolean): Promise<Outcome<{ channelOrderId: string | null }>>;
  query(co: PayChannelOrdersTable, splitNo: string): Promise<Outcome<SplitFacts>>;
  /** Ends the order's sharing: what is still frozen goes to the merchant. */
  finish(co: PayChannelOrdersTable, splitNo: string, description: string): Promise<Outcome<{ channelOrderId: string | null }>>;
}

/**
 * A wallet's payer login: the kit's mini-program in the wallet asks it for a one-time code, which
 * the server exchanges for the payer's open id (the id its `walletMini` orders name the payer by).
 */
export interface PayerLogin {
  /** A refusal means the code is not (or no longer) good; an unreachable platform throws `channel_unavailable`. */
  openIdFor(code: string): Promise<Outcome<{ openId: string }>>;
}

/** Fees are kept in 1/100000 of a yuan (bills carry up to 5 decimals). */
export const FEE_SCALE = 5;

/** One line of a daily bill, in the kit's words. */
export interface BillLine {
  /** 1-based line number in the day's bill (a bill made of several merchants' files numbers them in order). */
  lineNo: number;
  kind: 'payment' | 'refund';
  /** China time `yyyy-MM-dd HH:mm:ss`, as written. */
  time: string;
  /** The channel order's number (`out_trade_no` column). */
  orderNo: string;
  refundNo: string | null;
  transactionId: string;
  refundId: string | null;
  /** The sub-merchant's account at the platform, as the line names it ('' when none). */
  subAccount: string;
  /** The account the line belongs to: the sub-merchant's, else the merchant's. */
  account: string;
  /** The platform's word for the line's state (reports show it). */
  status: string;
  /** Whether the platform counts it: paid, or refunded. */
  settled: boolean;
  /** What was paid or asked to be refunded, in cents. */
  amountCents: number;
  feeUnits: number;
}

export interface BillSummary {
  settledCents: number;
  refundCents: number;
  feeUnits: number;
}

export type BillDownload = { kind: 'bill'; lines: BillLine[]; summary: BillSummary } | { kind: 'none' } | { kind: 'not_ready'; why: string };

/** A merchant's payment parameters of a channel as stored (a sub-merchant's own may leave out what it inherits). */
export type StoredParams = Partial<ChannelParams[PaymentChannel]>;

/** The capability of publishing a daily trade bill (5.2). */
export interface DailyBill {
  /**
   * The bill of a China date (`YYYY-MM-DD`) for every merchant the account covers, read strictly
   * (`channel_error` when it cannot be). `merchants`: the stored parameters of every merchant with
   * parameters of this channel; a platform that keeps one bill per merchant downloads one for each
   * merchant they name, one that keeps one for the whole account needs none of them.
   */
  download(date: string, merchants: readonly StoredParams[]): Promise<BillDownload>;
  /** Whether a stored line's `status` counts (a line kept from an earlier run). */
  settled(kind: BillLine['kind'], status: string): boolean;
}

/**
 * A payment channel as providers name it: one of the kit's wallets' (`PaymentChannel`), or one of a
 * wallet the composition root was given (any name its wallet declares), so not the kit's union.
 */
export type ChannelName = string;

/** A provider at work, built from the configuration. */
export interface PaymentProvider {
  readonly id: string;
  readonly channel: ChannelName;
  /** The provider's name in its notification route (`/pay-notify/<realm>/{pay,refund}`). */
  readonly realm: string;
  readonly flows: readonly PaymentFlow[];
  /**
   * A provider that is not the default of a flow takes it only when the merchant's parameters pick
   * it (4.4: the card acquirer when the sub-merchant has its parameters). Absent: a default.
   */
  picks?(params: Partial<ChannelParams[PaymentChannel]>): boolean;
  /** What new channel orders record as their sign type (the column). */
  signType(): string;
  /** The merchant for a flow from its payment parameters; throws `payment_params_missing` naming what is missing. */
  merchant(params: Partial<ChannelParams[PaymentChannel]>, flow: PaymentFlow, openId?: string): MerchantRef;
  /** Places (or places again: the same order number is the same order there) the channel order. */
  placeOrder(co: PayChannelOrdersTable, order: OrderForChannel): Promise<Outcome<Placed>>;
  queryOrder(co: PayChannelOrdersTable): Promise<Outcome<PaymentFacts>>;
  /** Closes it at the platform; `order`: its prepay order (a channel order is never placed with a later expiry). */
  closeOrder(co: PayChannelOrdersTable, order: Pick<OrderForChannel, 'expire_at'>): Promise<Outcome<Closed>>;
  /** Full refund; the same refund number sent again is the same refund there. */
  refund(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<Outcome<{ refundId: string | null }>>;
  queryRefund(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<Outcome<RefundFacts>>;
  /** The arguments a payer's mini-program or app payment needs, signed as the platform wants. */
  payerArgs(co: PayChannelOrdersTable, flow: 'miniProgram'): MiniProgramPayArgs;
  payerArgs(co: PayChannelOrdersTable, flow: 'app'): AppPayArgs;
  /**
   * A provider with its own endpoints (6.3): what the payer's wallet is given for a placed channel
   * order of one of its flows, in the platform's words as its endpoint documents them. What the kit
   * signs itself (an order string, a payment page's URL) is signed at each request, so that its
   * time is fresh; `returnUrl` is where a payment page sends the payer back.
   */
  walletArgs?(co: PayChannelOrdersTable, order: OrderForChannel, flow: PaymentFlow, payer: { returnUrl?: string }): Record<string, string>;
  /** The capability of naming a payer from the login code the wallet gave the kit's mini-program there. */
  payerLogin?: PayerLogin;
  notifications: NotificationReader;
  /** Whether a refusal means "the same call again later", not "no". */
  isRetryable(refusal: Refusal): boolean;
  profitSharing?: ProfitSharing;
  dailyBill?: DailyBill;
  /** The payer's payment code at the counter (7.4), for a wallet whose codes the platform charges. */
  codePayment?: CodePayment;
  /**
   * The merchant's account at the platform as bill lines name it (`BillLine.account`), from its
   * payment parameters; undefined when they name none. A bill line the kit has no record of is
   * shown to the merchants whose parameters name its account.
   */
  accountOf?(params: StoredParams): string | undefined;
}

/** The payer's payment code as the cashier scanned it (7.4). */
export interface PaymentCode {
  authCode: string;
  /** The counter's device, for the platform's records. */
  deviceId?: string;
  /** The shop whose counter scanned it (its sub-merchant id): the merchant's own store code, for the platform's records. */
  storeId?: string;
}

/**
 * The capability of charging a payer's payment code at the counter (7.4). `pay` places the channel
 * order with the code: the platform took the money (`paid`), or the payer confirms on the phone
 * (`paid: null`: the order query then tells), or a refusal (the code is used or invalid, the
 * balance short: nothing was taken). An outcome the platform did not give (no answer, a time
 * limit, a system error) throws `channel_unavailable`: the kit then cancels. `cancel` undoes the
 * trade whatever its state (a trade the payer paid meanwhile is given back); `again` when the
 * platform asks for the cancel once more. The order query follows a trade the payer confirms.
 */
export interface CodePayment {
  pay(co: PayChannelOrdersTable, order: OrderForChannel, code: PaymentCode): Promise<Outcome<{ paid: PaidFacts | null }>>;
  cancel(co: PayChannelOrdersTable): Promise<Outcome<{ again: boolean }>>;
}

/** The service's own settings a provider may read (its own section adds the rest). */
export interface ServiceSettings {
  DATA_DIR: string;
  production: boolean;
  PAY_GATEWAY_TIMEOUT: number;
  MP_APPID?: string;
  PUBLIC_URL?: string;
}

/** What the service gives a provider it builds. */
export interface ProviderContext {
  /** The platform's base URL: the gateway setting, or the service's own sandbox; 503 `channel_unavailable` naming the setting otherwise. */
  gateway(): string;
  /**
   * Where this provider's notifications go (`<public URL>/pay-notify/<realm>/<kind>`); without a
   * kind, the realm's one URL for both (`<public URL>/pay-notify/<realm>`, Alipay's).
   */
  notifyUrl(kind?: 'pay' | 'refund'): string;
  /** Where a provider logs its calls (the payments' log). */
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** The service's clock (design 7.1): signatures' times, answers' validity, calls' time limits. */
  clock: Clock;
}

/**
 * Documentation of a provider's notification route (the API reference, `openapi/paths/operations.ts`):
 * bodies and headers in the description helpers' shapes (`openapi/describe.ts`), kept opaque here.
 */
export interface NotificationDoc {
  /** Which protocol, for the descriptions (`API v3`, `Protocol v2`). */
  protocol: string;
  body: unknown;
  headers?: Record<string, z.ZodTypeAny>;
  /** The acknowledgement: its status, what it is, and its body when it has one. */
  ack: { status: number; description: string; content?: unknown };
  refusal: unknown;
  /** The platform sends payments and refunds to one URL, `/pay-notify/<realm>` (the provider's `notifyUrl()` without a kind). */
  oneUrl?: true;
}

/**
 * A registry entry (`registry.ts`): one per provider. `S` is its settings section, a zod shape the
 * configuration schema includes (docs/configuration.md is generated from it).
 */
export interface ProviderModule<S extends z.ZodRawShape = z.ZodRawShape, C = NoInfer<ServiceSettings & z.objectOutputType<S, z.ZodTypeAny>>> {
  id: string;
  /** The channel it takes payments through: one its wallet declares. */
  channel: ChannelName;
  /** The wallet it speaks for (`@kit/shared`'s `wallets/`, or a wallet of its own): the service's wallets are those of its providers. */
  wallet: WalletDeclaration;
  realm: string;
  /** What the realm is, for the API reference and the start's warnings. */
  description: string;
  /**
   * The user agent of the platform's app's browser (a token of the app's own), by which the POS's
   * one code for any wallet (`/p/<prepayId>`) knows an app that can pay; absent: none. Its wallet's
   * looks declare it (`payerBrowser`), which the payer page reads too.
   */
  payerBrowser?: RegExp;
  flows: readonly PaymentFlow[];
  /** The ways to pay it serves (design 7.2; their declarations are its wallet's, in `@kit/shared`'s `wallets/`). */
  ways: readonly WayDeclaration[];
  /** The settings section (`production` drops the sandbox defaults). */
  settings(production: boolean): S;
  /** Why a configuration is refused at start (a setting that does not parse with the others), or null. */
  settingsProblem?(config: C & { NODE_ENV: string }): string | null;
  /** Whether this provider speaks for its channel with this configuration (two protocols of one platform: one at a time). */
  active(config: C): boolean;
  /** The gateway setting's URL (a development plug-in that plays the provider gives its own instead: `played.ts`). */
  gatewayUrl(config: C): string | undefined;
  gatewaySetting: string;
  /** The settings it still needs before it can take a payment (empty: ready). */
  missingSettings(config: C): string[];
  create(config: C, ctx: ProviderContext): PaymentProvider;
  notificationDoc: NotificationDoc;
}

/** Keeps a module's settings type (the registry's list keeps each one's). */
export const defineProvider = <S extends z.ZodRawShape>(m: ProviderModule<S>): ProviderModule<S> => m;
