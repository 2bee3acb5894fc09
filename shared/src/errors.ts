/**
 * The one catalogue of failures. Each has a stable `error` id, an `E0`-shaped `code` and the HTTP
 * status it maps to; the server's error middleware is the only place that turns them into answers.
 */

export const ERROR_CATALOGUE = {
  // Request shape (400 family)
  invalid_request: { code: 'E0001', http: 400, msg: 'The request is invalid' },
  invalid_json: { code: 'E0002', http: 400, msg: 'The body is not valid JSON' },
  unsupported_media_type: { code: 'E0003', http: 415, msg: 'Bodies must be sent as application/json' },
  body_too_large: { code: 'E0004', http: 413, msg: 'The body is larger than this endpoint accepts' },
  invalid_amount: { code: 'E0005', http: 400, msg: 'The amount is invalid' },
  route_not_found: { code: 'E0006', http: 404, msg: 'No such endpoint' },
  method_not_allowed: { code: 'E0007', http: 405, msg: 'Method not allowed on this endpoint' },
  login_throttled: { code: 'E0008', http: 429, msg: 'Too many failed logins; try again after Retry-After seconds' },
  // Authentication (401)
  signature_missing: { code: 'E0010', http: 401, msg: 'The request is not signed' },
  signature_malformed: { code: 'E0011', http: 401, msg: 'The signature fields are malformed' },
  timestamp_invalid: { code: 'E0012', http: 401, msg: 'The timestamp _t is invalid' },
  timestamp_out_of_window: { code: 'E0013', http: 401, msg: 'The timestamp _t is too far from the server clock' },
  signature_mismatch: { code: 'E0014', http: 401, msg: 'The signature does not match' },
  signature_replayed: { code: 'E0015', http: 401, msg: 'This signed request was already accepted' },
  not_owner: { code: 'E0016', http: 401, msg: 'The signing app does not own this resource' },
  login_invalid: { code: 'E0017', http: 401, msg: 'The login is not valid' },
  login_failed: { code: 'E0018', http: 401, msg: 'Wrong user id or password' },
  secure_connection_required: { code: 'E0019', http: 403, msg: 'This call is only accepted over a secure connection' },
  // Merchants and apps
  not_found: { code: 'E0020', http: 404, msg: 'Not found' },
  unknown_merchant: { code: 'E0021', http: 400, msg: 'No such merchant' },
  merchant_disabled: { code: 'E0022', http: 400, msg: 'The merchant is disabled' },
  unknown_app: { code: 'E0023', http: 400, msg: 'No such app' },
  profit_sharing_not_enabled: { code: 'E0024', http: 400, msg: 'Profit sharing is not enabled for this merchant' },
  payment_params_missing: { code: 'E0025', http: 400, msg: 'The merchant has no payment parameters for this channel' },
  url_not_public: { code: 'E0026', http: 400, msg: "The URL points into the operator's own network (loopback, private or link-local address)" },
  // Orders and payments
  order_not_active: { code: 'E0030', http: 409, msg: 'The order is expired or does not exist' },
  order_not_paid: { code: 'E0031', http: 409, msg: 'The order has not been paid' },
  order_already_refunded: { code: 'E0032', http: 409, msg: 'The order was already refunded' },
  channel_error: { code: 'E0033', http: 502, msg: 'The payment channel refused or failed' },
  channel_unavailable: { code: 'E0034', http: 503, msg: 'The payment channel cannot be reached' },
  refund_in_progress: { code: 'E0035', http: 409, msg: 'A refund of this order was already requested' },
  notification_invalid: { code: 'E0036', http: 400, msg: 'The channel notification is forged or does not match the order' },
  payment_code_refused: { code: 'E0037', http: 402, msg: "The wallet refused the payer's payment code" },
  code_payment_waiting: { code: 'E0038', http: 409, msg: "A payment code of this order is waiting for the payer's confirmation" },
  // Chain, donations and points
  too_many_items: { code: 'E0040', http: 400, msg: 'Too many items in one call' },
  item_too_large: { code: 'E0041', http: 400, msg: 'An item is larger than 50 KB' },
  unknown_action_type: { code: 'E0042', http: 400, msg: 'Unknown action type' },
  invalid_action_args: { code: 'E0043', http: 400, msg: 'The action arguments are invalid' },
  duplicate_item_id: { code: 'E0044', http: 400, msg: 'The same id appears twice in one call' },
  project_not_found: { code: 'E0045', http: 400, msg: 'The donation project does not exist' },
  point_type_not_found: { code: 'E0046', http: 400, msg: 'The point type does not exist' },
  not_token_issuer: { code: 'E0047', http: 401, msg: 'Only the issuing app may do this' },
  not_user_app: { code: 'E0048', http: 401, msg: "Only the user's app may do this" },
  id_conflict: { code: 'E0049', http: 409, msg: 'This id was already used for different content' },
  uuid_spent: { code: 'E0050', http: 409, msg: 'This deduction code uuid was already spent' },
  // Profit sharing (4.8)
  profit_sharing_limit_exceeded: { code: 'E0060', http: 409, msg: 'All splits of an order together may take at most 30 % of its amount' },
  profit_sharing_receiver_unknown: { code: 'E0061', http: 400, msg: 'The receiver was not added for this merchant' },
  profit_sharing_order_conflict: { code: 'E0062', http: 409, msg: 'This outOrderNo was already used for a different request' },
  profit_sharing_finished: { code: 'E0063', http: 409, msg: 'Profit sharing of this order has been finished' },
  profit_sharing_refund_requested: { code: 'E0064', http: 409, msg: 'A refund of this order was requested; it can no longer be shared' },
  // POS display router (/pos/api)
  pos_not_sub_merchant: { code: 'E0070', http: 403, msg: 'Only a sub-merchant can use the POS display' },
  pos_points_session_invalid: { code: 'E0071', http: 400, msg: 'The points session is unknown or has ended; start it again' },
  pos_upstream_failed: { code: 'E0072', http: 502, msg: 'The service refused a call made for the POS display' },
  pos_upstream_unreachable: { code: 'E0073', http: 503, msg: 'The service could not be reached from the POS router' },
  // Mini-program router (/mp/api)
  mp_login_failed: { code: 'E0080', http: 400, msg: 'The login code was refused; log in again' },
  mp_login_unavailable: { code: 'E0081', http: 503, msg: 'The login service cannot be reached' },
  mp_not_configured: { code: 'E0082', http: 503, msg: 'The mini-program appid and secret are not configured' },
  mp_upstream_failed: { code: 'E0083', http: 502, msg: 'The service refused a call made for the mini-program' },
  mp_upstream_unreachable: { code: 'E0084', http: 503, msg: 'The service could not be reached from the mini-program router' },
  // The mini-program code the platform makes (POS display, docs/screens.md)
  mp_code_failed: { code: 'E0085', http: 502, msg: 'The platform refused to make the mini-program code' },
  mp_code_unavailable: { code: 'E0086', http: 503, msg: 'The platform that makes mini-program codes cannot be reached' },
  mp_scene_invalid: { code: 'E0087', http: 500, msg: "The order's scene does not fit in a mini-program code" },
  // Server side
  shutting_down: { code: 'E0090', http: 503, msg: 'The service is shutting down' },
  unavailable: { code: 'E0091', http: 503, msg: 'The database cannot be reached right now; retry after Retry-After seconds' },
  internal: { code: 'E0099', http: 500, msg: 'Internal error' },
} as const satisfies Record<string, { code: string; http: number; msg: string }>;

export type ErrorId = keyof typeof ERROR_CATALOGUE;

/** A failure the service answers with `{status: "fail", error, code, msg, traceId}`. */
export class KitError extends Error {
  readonly error: ErrorId;
  readonly code: string;
  readonly httpStatus: number;
  readonly details?: unknown;

  constructor(error: ErrorId, msg?: string, details?: unknown) {
    const entry = ERROR_CATALOGUE[error];
    super(msg ?? entry.msg);
    this.name = 'KitError';
    this.error = error;
    this.code = entry.code;
    this.httpStatus = entry.http;
    this.details = details;
  }
}

export const isKitError = (e: unknown): e is KitError => e instanceof KitError;

/** What a client sees when the service answers `status` other than the expected one. */
export class KitApiError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly body: { status?: string; error?: string; code?: string; msg?: string; traceId?: string } & Record<string, unknown>,
  ) {
    super(`${httpStatus} ${body.error ?? body.status ?? 'error'}: ${body.msg ?? 'no message'}`);
    this.name = 'KitApiError';
  }
  get error(): string | undefined {
    return this.body.error;
  }
  /** The order (or other resource) does not exist, or is not visible to this app. */
  get isNotFound(): boolean {
    return this.body.error === 'not_found';
  }
  /** Per specification 5.4 a 401 on a login-protected call means the login is no longer valid. */
  get isUnauthorized(): boolean {
    return this.httpStatus === 401;
  }
}

/** The network failed or the answer was not JSON: the request may or may not have been processed. */
export class KitNetworkError extends Error {
  constructor(
    message: string,
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'KitNetworkError';
  }
}
