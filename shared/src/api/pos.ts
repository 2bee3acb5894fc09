/**
 * The POS display's own API (`/pos/api/*`): answers of the thin router that holds the secrets.
 * Free of zod so the display can import it; the request schemas are in `pos-schemas.ts`.
 */
import type { OrderStatus, PrepayDetail } from './prepay';
import type { ProfitSharingSummary } from './profit-sharing';
import type { PaymentChannel } from './merchant';

export type { PosBalanceQuery, PosCreateOrderRequest, PosLoginRequest, PosPointsSessionRequest } from './pos-schemas';

/** The ids that can log in at the display: sub-merchants (`SM…`). A parent merchant (`PM…`) takes no payments. */
export const POS_LOGIN_ID = /^SM[0-9A-Za-z]{1,30}$/;
export const PARENT_MERCHANT_ID = /^PM[0-9A-Za-z]{1,30}$/;

export interface PosSession {
  merchantId: string;
  displayName: string;
  parentMerchantId: string | null;
}

/** An order as the payment screen shows it. */
export interface PosOrder {
  prepayId: string;
  amount: string;
  merchantName: string;
  status: OrderStatus;
  createTime: string;
  paymentTime?: string;
  /** When the refund completed, for a refunded order. */
  refundTime?: string;
  /** `sm.pay?prepayid=<id>` */
  scene: string;
  /**
   * What the mini-program tab shows (`POS_MP_CODE`): `platform`, the image of
   * `GET /pos/api/orders/<prepayId>/mini-program-code` (the code the platform draws for `scene`);
   * `link`, a plain QR code of `miniProgramLink`.
   */
  miniProgramCode: 'platform' | 'link';
  /** The payer link: `<prefix><encodeURIComponent(scene)>` (the plain code with `link`, text to copy outside production). */
  miniProgramLink: string;
  /**
   * The one code for any wallet (design 6.3): `<service>/p/<prepayId>`. The social app opens the
   * payer page (or the mini-program, by the platform's link rule), Alipay pays on the payer page,
   * any other browser is told to scan with either app. The display shows it first.
   */
  payerLink: string;
  /** The wallet that paid, as 4.7 names channels (`SocialNative`, `Alipay`…), once paid. */
  paymentChannel?: PaymentChannel;
  /**
   * The wallet whose app scans the mini-program code, and the scan-code QR: its id, whose looks
   * (`@kit/shared/wallets/looks`) name it under the code.
   */
  scannedWith: { miniProgram: string; scanCode: string };
  /** The scan-code QR content (4.3), or null when the channel could not give one (see `codeUrlError`). */
  codeUrl: string | null;
  codeUrlError?: string;
  /** The service's error id of that refusal (`ERROR_CATALOGUE`), for a screen to say in its language. */
  codeUrlErrorId?: string;
  /** Outside production only: what the display says under the code so that a person can pay it from a phone. */
  development?: PosDevelopmentHelp;
}

/** Outside production: the links as text, and how a phone reaches the payer link. */
export interface PosDevelopmentHelp {
  /** The payer link points at a loopback address (127.0.0.1, localhost), which a phone cannot open. */
  loopbackLink: boolean;
  /** This display at the machine's network addresses (`http://192.168.1.20:8080/pos/`), for a phone on the same network. */
  lanDisplayUrls: string[];
}

/** A line of today's order list. */
export interface PosOrderSummary {
  prepayId: string;
  amount: string;
  status: OrderStatus;
  createTime: string;
  paymentTime?: string;
  /** When the refund completed, for a refunded order. */
  refundTime?: string;
  /** The wallet that paid (4.7 channel names), once paid. */
  paymentChannel?: PaymentChannel;
  /** Only for a paid order placed with profit sharing (4.8); the display shows it, the cashier does not split. */
  profitSharing?: ProfitSharingSummary;
}

export interface PosPointsSession {
  /** Opaque, sealed by the router; sent back to get each fresh code. */
  handle: string;
  /** The code's on-chain id (4.13 `uuid`), the same for every code of this session. */
  uuid: string;
  userId: string;
  tokenId: string;
  tokenAppId: string;
  userAppId: string;
  maxAmount: string;
  /** Unix ms after which the router refuses the handle. */
  expiresAt: number;
}

export interface PosPointsCode {
  /** QR content (4.13 `data.chainLinks[0]`); null once the session's uuid is spent. */
  chainLink: string | null;
  /** The customer paid with a code of this session: no more codes, `balance` is the one after it. */
  spent: boolean;
  /** Current balance, or null when it could not be read this time. */
  balance: string | null;
  validForMs: number;
  refreshEveryMs: number;
}

/**
 * What charging the payer's payment code did (7.4): `paid`; `waiting` while the payer confirms on the
 * phone, until `confirmUntil` (the order then finishes as any other, or the code is cancelled);
 * `refused` by the wallet (`reason`: `code` the code is used or expired, ask for a fresh one;
 * `payer` the payer cannot pay with it, another card or way; `other`), with the wallet's own code;
 * `cancelled`: the wallet gave no outcome, so the kit cancelled it (the payer is not charged).
 */
export type PosCodePayment =
  | { result: 'paid' | 'waiting'; channel: PaymentChannel; confirmUntil?: string }
  | { result: 'refused'; reason: 'code' | 'payer' | 'other'; platformCode: string }
  | { result: 'cancelled' };

export type PosOk<T> = { version: 1; status: 'success' } & T;
export type PosLoginResponse = PosOk<{ session: PosSession }>;
/** `session` is null when nobody is logged in; `expired` when the cookie's login is no longer valid. */
export type PosSessionResponse = PosOk<{ session: PosSession | null; expired?: boolean }>;
export type PosOrderResponse = PosOk<{ order: PosOrder }>;
export type PosCodePaymentResponse = PosOk<{ payment: PosCodePayment }>;
export type PosOrderListResponse = PosOk<{ orders: PosOrderSummary[] }>;
/** 4.2's held answer as it came, plus the wallet that paid once the order is paid. */
export type PosWaitResponse = PrepayDetail & { paymentChannel?: PaymentChannel };
export type PosRefundResponse = PosOk<{ detail: PosWaitResponse }>;
export type PosBalanceResponse = PosOk<{ balance: string; tokenId: string; tokenAppId: string; userAppId: string; userId: string }>;
export type PosPointsSessionResponse = PosOk<{ session: PosPointsSession; balance: string | null }>;
export type PosPointsCodeResponse = PosOk<{ code: PosPointsCode }>;

/** Deduction-code timing (specification section 8), from its one place. */
export { DEDUCTION_CODE_REFRESH_MS, DEDUCTION_CODE_TTL_MS } from './deduction-code';
