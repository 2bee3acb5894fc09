/**
 * Typed API client for a merchant backend: signs every call (docs/signing.md), has one typed method per
 * endpoint whose answer is checked against its zod schema (`api/*.ts`), and implements the
 * specification's long-poll loop for payment results (4.2).
 */
import { KitApiError, KitNetworkError } from './errors';
import { waitLoop, type WaitOptions } from './long-poll';
import { encodeQuery, signRequest, type QueryInput } from './signing';
import type { ZodType } from 'zod';
import { describeZodError } from './api/common';
import {
  callbackListResponseSchema,
  callbackRecoverResponseSchema,
  callbackResendResponseSchema,
  type CallbackListQuery,
  type CallbackListResponse,
  type CallbackRecoverRequest,
  type CallbackRecoverResponse,
  type CallbackResendResponse,
} from './api/callbacks';
import {
  createMerchantResponseSchema,
  loginResponseSchema,
  paySuccessSchema,
  type CreateMerchantRequest,
  type CreateMerchantResponse,
  type LoginResponse,
  type PaySuccess,
  type PaymentChannel,
} from './api/merchant';
import { createPrepayResponseSchema, prepayDetailSchema, type CreatePrepayRequest, type CreatePrepayResponse, type PrepayDetail } from './api/prepay';
import {
  reconciliationListResponseSchema,
  reconciliationResponseSchema,
  type ReconciliationListResponse,
  type ReconciliationResponse,
} from './api/reconciliation';
import { refundResponseSchema, type RefundResponse } from './api/payment';
import {
  KIT_WALLETS,
  walletCatalogue,
  wayAnswerSchema,
  type PayAnswer,
  type PayAnswerOf,
  type PayRequest,
  type PayRequestOf,
  type WalletCatalogue,
  type WalletDeclaration,
  type WayDeclaration,
  type WayInput,
  type WayName,
} from './wallets';
import {
  sharingAmountsResponseSchema,
  splitAcceptedResponseSchema,
  splitDetailResponseSchema,
  type AddReceiverRequest,
  type FinishSharingRequest,
  type RemoveReceiverRequest,
  type SharingAmountsResponse,
  type SplitAcceptedResponse,
  type SplitDetailResponse,
  type SplitRequest,
} from './api/profit-sharing';
import {
  donationOnChainIdsAnswerSchema,
  donationPendingResponseSchema,
  type Donation,
  type DonationLookupRequest,
  type DonationOnChainIdsAnswer,
  type DonationPendingResponse,
  type DonationProject,
} from './api/donation';
import { balanceResponseSchema, deductionCodeResponseSchema, type BalanceResponse, type DeductionCodeResponse } from './api/points';
import {
  lookupResponseSchema,
  proofAnswerSchema,
  uploadResponseSchema,
  type LookupItem,
  type LookupResponse,
  type ProofAnswer,
  type UploadItem,
  type UploadResponse,
} from './api/chain';

/** The account a point balance belongs to (4.12): the point type and its issuing app, the user and the user's app. */
export interface PointsAccount {
  tokenId: string;
  tokenAppId: string;
  userAppId: string;
  userId: string;
}

/** 4.13: the account, the most the code may deduct (points) and the code's id (32 letters and digits, the same for the same payment). */
export interface DeductionCodeRequest extends PointsAccount {
  maxAmount: number;
  uuid: string;
}

export interface KitClientOptions {
  /** Service base URL, e.g. `http://127.0.0.1:8080` (a path prefix is allowed). */
  baseUrl: string;
  appId: string;
  appSecret: string;
  /** Replaceable for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Per-request time limit; long-poll calls get the hold time on top. */
  timeoutMs?: number;
  /** Where `_t` comes from: the machine's time by default; a test gives the clock of the service it calls (`test-clock.ts`). */
  clock?: { now(): number };
}

/**
 * A client of a service that takes wallets besides the kit's (registered with its composition root):
 * their declarations, whose ways `pay` then takes and whose answers it checks (`W`: those wallets).
 */
export interface WalletsOption<W extends WalletDeclaration> {
  wallets?: readonly W[];
}

export interface CallOptions {
  query?: QueryInput;
  body?: unknown;
  /** Skip `_appid/_t/_s` (only login is unsigned). */
  unsigned?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface RawAnswer<T = Record<string, unknown>> {
  httpStatus: number;
  body: T;
}

/**
 * `_t` is strictly increasing for the clients of one clock, and never handed out twice in this
 * process whatever clock each client reads, so two identical calls made in the same millisecond (by
 * one client or by two) never share a signature, which the service would refuse as a replay. A
 * clock a test moved hours ahead leaves the other clocks' sequences where they were.
 */
const lastTOf = new WeakMap<object, number>();
const systemKey = {};
const recentlyIssued = new Set<number>();
const RECENT_KEPT = 4096;

/** A fresh `_t`: the current time in milliseconds of `clock` (the machine's by default), unique in this process. */
export function nextTimestamp(now = Date.now(), clock: object = systemKey): number {
  let t = Math.max(now, (lastTOf.get(clock) ?? 0) + 1);
  while (recentlyIssued.has(t)) t++;
  lastTOf.set(clock, t);
  recentlyIssued.add(t);
  if (recentlyIssued.size > RECENT_KEPT) recentlyIssued.delete(recentlyIssued.values().next().value as number);
  return t;
}

/** The ways of the wallets `W` a client was given (besides the kit's). */
type AnyWayOf<W extends WalletDeclaration> = W['ways'][number];

export class KitClient<W extends WalletDeclaration = never> {
  private readonly base: string;
  private readonly basePath: string;
  private readonly fetchImpl: typeof fetch;
  /** The wallets whose ways `pay` knows: the kit's, and those given. */
  private readonly wallets: WalletCatalogue;

  constructor(private readonly opts: KitClientOptions & WalletsOption<W>) {
    const url = new URL(opts.baseUrl);
    this.base = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.fetchImpl = opts.fetch ?? fetch;
    this.wallets = opts.wallets?.length ? walletCatalogue([...KIT_WALLETS.wallets, ...opts.wallets]) : KIT_WALLETS;
  }

  /** Sends one request and returns the HTTP status and parsed body, whatever `status` says. */
  async call<T = Record<string, unknown>>(method: string, path: string, options: CallOptions = {}): Promise<RawAnswer<T>> {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const pairs = options.unsigned
      ? Object.entries(options.query ?? {}).flatMap(([k, v]) => (v === undefined || v === null ? [] : [[k, String(v)] as [string, string]]))
      : signRequest(
          { method, path, query: options.query, body },
          this.opts,
          this.opts.clock ? nextTimestamp(this.opts.clock.now(), this.opts.clock) : nextTimestamp(),
        );
    const qs = encodeQuery(pairs);
    const url = `${this.base}${this.basePath}${path}${qs ? `?${qs}` : ''}`;
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.opts.timeoutMs ?? 30_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method,
        body,
        signal,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      });
    } catch (e) {
      if (options.signal?.aborted) throw e;
      throw new KitNetworkError(`${method} ${path} failed: ${(e as Error).message}`, e);
    }
    const text = await res.text().catch((e) => {
      throw new KitNetworkError(`${method} ${path}: reading the answer failed`, e);
    });
    try {
      return { httpStatus: res.status, body: JSON.parse(text) as T };
    } catch {
      throw new KitNetworkError(`${method} ${path}: answer ${res.status} is not JSON`);
    }
  }

  /**
   * Calls and insists on HTTP 200 with the expected `status` (or one of them, for endpoints whose
   * `pending` is an answer rather than a failure); anything else throws KitApiError.
   */
  async expect<T>(expected: string | readonly string[], method: string, path: string, options: CallOptions & { schema?: ZodType<T> } = {}): Promise<T> {
    const answer = await this.call<Record<string, unknown>>(method, path, options);
    const ok = typeof expected === 'string' ? answer.body.status === expected : expected.includes(answer.body.status as string);
    if (answer.httpStatus !== 200 || !ok) throw new KitApiError(answer.httpStatus, answer.body);
    return options.schema ? this.checked(options.schema, answer) : (answer.body as T);
  }

  /** Types are only promises: an answer that does not have the documented shape is an error, not a surprise later. */
  private checked<T>(schema: ZodType<T>, answer: RawAnswer): T {
    const parsed = schema.safeParse(answer.body);
    if (parsed.success) return parsed.data;
    throw new KitApiError(answer.httpStatus, {
      status: 'fail',
      error: 'unexpected_answer',
      msg: `the answer does not have the documented shape: ${describeZodError(parsed.error)}`,
    });
  }

  createMerchant(req: CreateMerchantRequest): Promise<CreateMerchantResponse> {
    return this.expect('success', 'POST', '/merchant', { body: req, schema: createMerchantResponseSchema });
  }

  login(userId: string, pw: string): Promise<LoginResponse> {
    return this.expect('success', 'POST', '/merchant/login', { body: { userId, pw }, unsigned: true, schema: loginResponseSchema });
  }

  /** 4.7: one channel's parameters (a channel of the kit's wallets, or of a wallet this client was given). */
  setPaymentParams(id: string, paymentChannel: PaymentChannel | (keyof W['channels'] & string), parameters: Record<string, unknown>): Promise<PaySuccess> {
    return this.expect('success', 'PUT', '/merchant/paymentParams', { body: { id, paymentChannel, parameters }, schema: paySuccessSchema });
  }

  createPrepay(req: CreatePrepayRequest): Promise<CreatePrepayResponse> {
    return this.expect('success', 'POST', '/submerchant-pay/', { body: { orderId: null, ...req }, schema: createPrepayResponseSchema });
  }

  /** 4.2 the order: its status, amount and times. With `wait`, the service holds the answer until the order leaves `active` or the hold ends. */
  async prepayDetail(prepayId: string, opts: { wait?: boolean; signal?: AbortSignal } = {}): Promise<PrepayDetail> {
    const answer = await this.call<PrepayDetail & { error?: string }>('GET', `/submerchant-pay/prePay/${encodeURIComponent(prepayId)}`, {
      query: { waitForFinish: opts.wait ? 1 : 0 },
      signal: opts.signal,
      // A held call may last up to 55 s on the server side.
      timeoutMs: opts.wait ? 60_000 : undefined,
    });
    // An unknown order is HTTP 200 with `status: "fail"` (`error: "not_found"`): neither active nor finish.
    if (answer.httpStatus !== 200 || (answer.body as { status?: string }).status === 'fail') throw new KitApiError(answer.httpStatus, answer.body as never);
    return this.checked(prepayDetailSchema, answer);
  }

  /**
   * The client loop of 4.2: call with `waitForFinish=1`; on a non-`finish` `active` answer, a
   * network error or a 5xx, call again at once. Returns the detail when the order is `finish`
   * or has otherwise left `active` (expired, refunded); throws KitApiError for an unknown order
   * (`error: "not_found"`, HTTP 200) and on 4xx (bad signature).
   */
  waitForPayment(prepayId: string, opts: WaitOptions = {}): Promise<PrepayDetail> {
    return waitLoop(() => this.prepayDetail(prepayId, { wait: true, signal: opts.signal }), opts);
  }

  // ---- 4.3–4.6 payments ------------------------------------------------------------------

  /**
   * Payment arguments for any way to pay (design 7.2): `way` names it (`socialPayNative`, `socialPay`,
   * `socialPayApp`, a wallet's own) and the rest is what that way takes; the answer is checked against
   * the way's declared `args`.
   */
  pay<N extends WayName>(req: PayRequest & { way: N }): Promise<PayAnswer<N>>;
  /** A way of a wallet this client was given (`wallets`). */
  pay<N extends AnyWayOf<W>['name']>(req: PayRequestOf<Extract<AnyWayOf<W>, { name: N }>>): Promise<PayAnswerOf<Extract<AnyWayOf<W>, { name: N }>>>;
  pay(req: { prepayId: string; way: string }): Promise<unknown> {
    return this.expect('success', 'POST', '/submerchant-pay/pay', { body: req, schema: this.answerOf(req.way) });
  }

  /** One way's own endpoint (`POST /submerchant-pay/<way>`). */
  payVia<N extends WayName>(way: N, prepayId: string, input: WayInput<N>): Promise<PayAnswer<N>> {
    return this.expect('success', 'POST', `/submerchant-pay/${way}`, { body: { prepayId, ...input }, schema: this.answerOf(way) });
  }

  private answerOf<N extends WayName>(name: N): ZodType<PayAnswer<N>>;
  private answerOf(name: string): ZodType<unknown>;
  private answerOf(name: string): ZodType<unknown> {
    const way: WayDeclaration | undefined = this.wallets.wayOf(name);
    if (!way) throw new TypeError(`there is no way named ${name}`);
    return wayAnswerSchema(way.args);
  }

  /** 4.3 scan-code payment arguments; make the QR code from `args.code_url`. */
  socialPayNative(prepayId: string): Promise<PayAnswer<'socialPayNative'>> {
    return this.payVia('socialPayNative', prepayId, {});
  }

  /**
   * 4.4 mini-program payment arguments for the payer `openId` (obtained on the backend, never given
   * to the mini-program); pass `args` unchanged to the mini-program's payment call.
   */
  socialPay(prepayId: string, openId: string): Promise<PayAnswer<'socialPay'>> {
    return this.payVia('socialPay', prepayId, { openId });
  }

  /** 4.5 app payment arguments. `enableProfitSharing` only takes effect for contracted merchants. */
  socialPayApp(prepayId: string, opts: { enableProfitSharing?: boolean } = {}): Promise<PayAnswer<'socialPayApp'>> {
    return this.payVia('socialPayApp', prepayId, opts.enableProfitSharing === undefined ? {} : { enableProfitSharing: opts.enableProfitSharing });
  }

  /**
   * 7.4 the payer's payment code, scanned at the counter: `args.result` is `paid`, or `waiting` while
   * the payer confirms on the phone (then wait for the order as for any payment: `waitForPayment`).
   */
  codePay(prepayId: string, authCode: string, deviceId?: string): Promise<PayAnswer<'codePay'>> {
    return this.payVia('codePay', prepayId, deviceId === undefined ? { authCode } : { authCode, deviceId });
  }

  /** 6.3 Alipay scan-code payment arguments; make the QR code from `args.qr_code`. */
  alipayNative(prepayId: string): Promise<PayAnswer<'alipayNative'>> {
    return this.payVia('alipayNative', prepayId, {});
  }

  /** 6.3 Alipay mini-program payment for the payer `buyerOpenId`; the mini-program pays `args.tradeNO` with `my.tradePay`. */
  alipayMini(prepayId: string, buyerOpenId: string): Promise<PayAnswer<'alipayMini'>> {
    return this.payVia('alipayMini', prepayId, { buyerOpenId });
  }

  /** 6.3 Alipay app payment; give `args.orderStr` to the Alipay app SDK as it is. */
  alipayApp(prepayId: string): Promise<PayAnswer<'alipayApp'>> {
    return this.payVia('alipayApp', prepayId, {});
  }

  /** 6.3 Alipay payment page: open `args.url` in Alipay's browser; the payer comes back to `returnUrl`. */
  alipayWap(prepayId: string, returnUrl?: string): Promise<PayAnswer<'alipayWap'>> {
    return this.payVia('alipayWap', prepayId, returnUrl === undefined ? {} : { returnUrl });
  }

  /**
   * 4.6 full refund of a paid order, with the login token of its sub-merchant or of the parent
   * (`login(...).loginToken`). Success means accepted: the order turns `refunded` when the channel
   * completes it. A 401 (`isUnauthorized`) means the login is no longer valid.
   */
  refund(prepayId: string, loginToken: string): Promise<RefundResponse> {
    return this.expect('success', 'POST', '/submerchant-pay/refund', { query: { loginToken }, body: { id: prepayId }, schema: refundResponseSchema });
  }

  // ---- 4.8 profit sharing (contracted merchants, orders placed with profit sharing) -------

  /** Adds a receiver for the orders of a merchant and its sub-merchants (idempotent). */
  addProfitSharingReceiver(req: AddReceiverRequest): Promise<PaySuccess> {
    return this.expect('success', 'POST', '/submerchant-pay/profitSharing/receivers', { body: req, schema: paySuccessSchema });
  }

  /** Removes a receiver: later splits cannot name it (idempotent). */
  removeProfitSharingReceiver(req: RemoveReceiverRequest): Promise<PaySuccess> {
    return this.expect('success', 'POST', '/submerchant-pay/profitSharing/receivers/remove', { body: req, schema: paySuccessSchema });
  }

  /**
   * One split of a paid order (all splits together at most 30 % of it). Accepted at once
   * (`data.state: "processing"`); follow it with `profitSharingOrder` or `waitForProfitSharing`.
   * Sending the same `outOrderNo` again is the same split.
   */
  shareProfit(req: SplitRequest): Promise<SplitAcceptedResponse> {
    return this.expect('success', 'POST', '/submerchant-pay/profitSharing/orders', { body: req, schema: splitAcceptedResponseSchema });
  }

  /** A split's (or finish's) state and each receiver's result. */
  profitSharingOrder(prepayId: string, outOrderNo: string): Promise<SplitDetailResponse> {
    return this.expect('success', 'GET', `/submerchant-pay/profitSharing/orders/${encodeURIComponent(outOrderNo)}`, {
      query: { prepayId },
      schema: splitDetailResponseSchema,
    });
  }

  /**
   * Polls a split until every receiver has a final result (`data.state: "finished"`), every
   * `intervalMs` (default 1 s), for at most `timeoutMs` (default 2 min; then the last answer).
   */
  async waitForProfitSharing(
    prepayId: string,
    outOrderNo: string,
    opts: { intervalMs?: number; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<SplitDetailResponse> {
    const until = Date.now() + (opts.timeoutMs ?? 120_000);
    for (;;) {
      const answer = await this.profitSharingOrder(prepayId, outOrderNo);
      if (answer.data.state === 'finished' || Date.now() >= until || opts.signal?.aborted) return answer;
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 1_000));
    }
  }

  /** Ends the order's sharing: what was not shared is released to the merchant; no split may follow. */
  finishProfitSharing(req: FinishSharingRequest): Promise<SplitAcceptedResponse> {
    return this.expect('success', 'POST', '/submerchant-pay/profitSharing/finish', { body: req, schema: splitAcceptedResponseSchema });
  }

  /** What the order may share (30 %), has shared, and whether the rest was released. */
  profitSharingAmounts(prepayId: string): Promise<SharingAmountsResponse> {
    return this.expect('success', 'GET', `/submerchant-pay/profitSharing/amounts/${encodeURIComponent(prepayId)}`, { schema: sharingAmountsResponseSchema });
  }

  // ---- callback operations (design 5.3) ----------------------------------------------------

  /**
   * The callbacks of an order (`{prepayId}`) or of a merchant (`{merchantId, state?, since?, until?}`;
   * a parent merchant's include its sub-merchants'), newest first, each with every attempt. Pass the
   * answer's `data.next` as `cursor` for the next page.
   */
  callbacks(query: CallbackListQuery): Promise<CallbackListResponse> {
    return this.expect('success', 'GET', '/callbacks', { query: { ...query }, schema: callbackListResponseSchema });
  }

  /** Delivers a callback again now, freshly signed, as a new series of attempts; one already pending is left as it is (`resent: false`). */
  resendCallback(id: string): Promise<CallbackResendResponse> {
    return this.expect('success', 'POST', '/callbacks/resend', { body: { id }, schema: callbackResendResponseSchema });
  }

  /** Resends every given-up callback of a merchant (and its sub-merchants) created in `[since, until)`; answers how many. */
  recoverCallbacks(req: CallbackRecoverRequest): Promise<CallbackRecoverResponse> {
    return this.expect('success', 'POST', '/callbacks/recover', { body: req, schema: callbackRecoverResponseSchema });
  }

  // ---- daily statement reconciliation ----------------------------------------------------

  /** The reconciled days, newest first, with the counts of this app's merchants' differences. */
  reconciliations(query: { limit?: number; before?: string } = {}): Promise<ReconciliationListResponse> {
    const q = { ...(query.limit !== undefined ? { limit: String(query.limit) } : {}), ...(query.before ? { before: query.before } : {}) };
    return this.expect('success', 'GET', '/reconciliation', { query: q, schema: reconciliationListResponseSchema });
  }

  /** A China date's (`YYYY-MM-DD`) reconciliation: the differences of this app's merchants; `not_found` until the day is reconciled. */
  reconciliation(date: string): Promise<ReconciliationResponse> {
    return this.expect('success', 'GET', `/reconciliation/${encodeURIComponent(date)}`, { schema: reconciliationResponseSchema });
  }

  // ---- 4.9–4.11 donations ----------------------------------------------------------------

  /** 4.9: accepted and queued for the chain (`pending`); on an error, correct it and retry until accepted. */
  createDonationProject(project: DonationProject): Promise<DonationPendingResponse> {
    return this.expect('pending', 'POST', '/donation/project', { body: project, schema: donationPendingResponseSchema });
  }

  /** 4.10: accepted and queued for the chain (`pending`). */
  donate(donation: Donation): Promise<DonationPendingResponse> {
    return this.expect('pending', 'POST', '/donation/donate', { body: donation, schema: donationPendingResponseSchema });
  }

  /**
   * 4.11 (at most 20 ids). `success` maps each confirmed id to its on-chain id (failed or unknown ids
   * are left out); `pending` while any of them is still queued: ask again later.
   */
  donationOnChainIds(type: DonationLookupRequest['type'], originalIds: string[]): Promise<DonationOnChainIdsAnswer> {
    return this.expect(['success', 'pending'], 'POST', '/donation/fetchOnChainIds', { body: { type, originalIds }, schema: donationOnChainIdsAnswerSchema });
  }

  // ---- 4.12–4.13 trusted points -----------------------------------------------------------

  /** 4.12 balance of a point type for a user (asked by the issuing app or the user's app). */
  pointsBalance(account: PointsAccount): Promise<BalanceResponse> {
    const { tokenId, tokenAppId, userAppId, userId } = account;
    return this.expect('success', 'GET', '/fungible-token/balance', { query: { tokenId, tokenAppId, userAppId, userId }, schema: balanceResponseSchema });
  }

  /** 4.13 deduction code (the QR content is `data.chainLinks[0]`); only the user's own app may ask. */
  deductionCode(req: DeductionCodeRequest): Promise<DeductionCodeResponse> {
    const { tokenId, tokenAppId, userAppId, userId, maxAmount, uuid } = req;
    return this.expect('success', 'GET', '/fungible-token/chainPay', {
      query: { tokenId, tokenAppId, userAppId, userId, maxAmount, uuid },
      schema: deductionCodeResponseSchema,
    });
  }

  // ---- 4.14–4.15 chain upload -------------------------------------------------------------

  /** 4.14 batch upload (at most 50 items): `pending` means queued, not yet on chain. */
  upload(items: UploadItem[]): Promise<UploadResponse> {
    return this.expect('pending', 'POST', '/common-chain-upload/', { body: { items }, schema: uploadResponseSchema });
  }

  /**
   * 4.15 lookup (at most 500 items); `items[i]` answers `items[i]`: `{id, chainTrxId, chainBlockNum}`
   * confirmed, `{id: ""}` still pending, `{}` failed or unknown (resubmit).
   */
  lookup(items: LookupItem[]): Promise<LookupResponse> {
    return this.expect('success', 'POST', '/common-chain-upload/fetchOnChainIds', { body: { items }, schema: lookupResponseSchema });
  }

  /**
   * The inclusion proof of one of this app's items by on-chain id (check it with
   * `verifyChainProof`), or `pending` while the item is still queued.
   */
  proof(onChainId: string): Promise<ProofAnswer> {
    return this.expect(['success', 'pending'], 'GET', `/common-chain-upload/proof/${encodeURIComponent(onChainId)}`, { schema: proofAnswerSchema });
  }
}
