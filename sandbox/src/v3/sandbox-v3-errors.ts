/**
 * The v2 business failures of the shared sandbox rules (sandbox-platform.ts, sandbox-profit-sharing.ts)
 * as API v3 answers: the HTTP status and code the platform documents for the same case.
 */
import type { ProtocolFail } from '../sandbox-protocol';
import { V3Fail } from './sandbox-v3-http';

/** `notFound`: the code of an unknown order on this endpoint (ORDER_NOT_EXIST on orders, RESOURCE_NOT_EXISTS elsewhere). */
export function v3Failure(e: ProtocolFail, notFound: 'ORDER_NOT_EXIST' | 'RESOURCE_NOT_EXISTS'): V3Fail {
  switch (e.code) {
    case 'PARAM_ERROR':
      return new V3Fail(400, 'PARAM_ERROR', e.message);
    case 'ORDERNOTEXIST':
    case 'ORDER_NOT_EXIST':
      return new V3Fail(404, notFound, e.message);
    case 'REFUNDNOTEXIST':
      return new V3Fail(404, 'RESOURCE_NOT_EXISTS', e.message);
    case 'ORDERPAID':
      return new V3Fail(400, 'ORDERPAID', e.message);
    case 'ORDERCLOSED':
      return new V3Fail(400, 'ORDER_CLOSED', e.message);
    case 'AMOUNT_OVERDUE':
      return new V3Fail(403, 'NOT_ENOUGH', e.message);
    case 'NOT_SUPPORTED':
      return new V3Fail(403, 'NO_AUTH', e.message);
    default:
      // INVALID_REQUEST, TRADE_STATE_ERROR, ERROR (fully refunded), NOT_SHARING_ORDER, ORDER_NOT_READY,
      // ORDER_FINISHED, RECEIVER_INVALID: a well-formed request the business rules refuse.
      return new V3Fail(400, 'INVALID_REQUEST', `${e.message} (${e.code})`);
  }
}
