/**
 * `SocialNative`'s calls over API v3: the same operations and answers as the protocol-v2 gateway
 * (order, query, close, refund, refund query, profit sharing), built with partner-api.ts and
 * partner-profit-sharing.ts, sent through the verifying client. An answer that verifies but does not
 * read as documented is a channel error, never a result.
 */
import { KitError } from '@kit/shared';
import type { PayChannelOrdersTable, PayRefundsTable } from '../../../db/schema';
import type { ProtocolAnswer } from '../protocol-v2/client';
import { merchantOf } from '../protocol-v2/merchant';
import type { OrderCalls, ProfitSharingCalls, TradeType } from '../protocol-v2/types';
import type { PaymentCode } from '../provider';
import type { V3Client, V3Request, V3Answer } from './client';
import {
  codePayRequest,
  readCodePaid,
  readReversed,
  reverseRequest,
  closeRequest,
  placeRequest,
  queryRequest,
  readClosed,
  readPlaced,
  readQueried,
  readRefund,
  readRefundQuery,
  refundQueryRequest,
  refundRequest,
  V3AnswerError,
} from './partner-api';
import {
  addReceiverRequest,
  amountsRequest,
  finishRequest,
  querySplitRequest,
  readAmounts,
  readDone,
  readSplit,
  removeReceiverRequest,
  splitRequest,
} from './partner-profit-sharing';
import type { PlatformKeySource } from './platform-key-source';
import { encryptSensitive } from './sensitive';

export interface OrderForV3 {
  prepay_id: string;
  display_name: string;
  expire_at: number;
}

/** v3 limits `description` to 127 bytes; cut on a character boundary. */
function description(text: string): string {
  let out = '';
  for (const ch of text) {
    if (Buffer.byteLength(out + ch) > 127) break;
    out += ch;
  }
  return out || '-';
}

export class V3Calls implements OrderCalls, ProfitSharingCalls {
  constructor(
    private readonly client: () => V3Client,
    private readonly keys: PlatformKeySource,
    private readonly notifyUrl: (kind: 'pay' | 'refund') => string,
  ) {}

  unifiedOrder(co: PayChannelOrdersTable, order: OrderForV3): Promise<ProtocolAnswer> {
    const tradeType = co.trade_type as TradeType;
    const req = placeRequest(tradeType, merchantOf(co), {
      out_trade_no: co.out_trade_no,
      description: description(order.display_name),
      attach: order.prepay_id,
      total_cents: co.total_cents,
      expire_at: order.expire_at,
      notify_url: this.notifyUrl('pay'),
      profit_sharing: co.profit_sharing === 1,
    });
    const m = merchantOf(co);
    return this.exchange(req, (a) => {
      const placed = readPlaced(tradeType, a);
      // 4.3's `args` keep the fields v2 answered; v3 gives `code_url` only, so the others say what
      // is true of this answer: the service provider's ids, the verified answer's nonce, no v2
      // signature and no prepay id (docs/payments.md).
      if (placed.ok) placed.fields = { return_msg: 'OK', appid: m.appid, mch_id: m.mch_id, nonce_str: a.headers.nonce ?? '', sign: '', ...placed.fields };
      return placed;
    });
  }

  /** The payer's payment code (7.4): the trade, `USERPAYING`, or a failure (`readCodePaid`). */
  codePay(co: PayChannelOrdersTable, order: OrderForV3, code: PaymentCode): Promise<ProtocolAnswer> {
    const req = codePayRequest(merchantOf(co), {
      out_trade_no: co.out_trade_no,
      description: description(order.display_name),
      attach: order.prepay_id,
      total_cents: co.total_cents,
      auth_code: code.authCode,
      device_id: code.deviceId,
      store_id: code.storeId,
    });
    return this.exchange(req, readCodePaid);
  }

  reverse(co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.exchange(reverseRequest(merchantOf(co), co.out_trade_no), readReversed);
  }

  orderQuery(co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.exchange(queryRequest(merchantOf(co), co.out_trade_no), readQueried);
  }

  closeOrder(co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.exchange(closeRequest(merchantOf(co), co.out_trade_no), readClosed);
  }

  refund(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    const req = refundRequest(merchantOf(co), {
      out_trade_no: co.out_trade_no,
      transaction_id: co.transaction_id,
      out_refund_no: r.out_refund_no,
      refund_cents: r.refund_cents,
      total_cents: co.total_cents,
      notify_url: this.notifyUrl('refund'),
    });
    return this.exchange(req, readRefund);
  }

  refundQuery(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.exchange(refundQueryRequest(merchantOf(co), r.out_refund_no), readRefundQuery);
  }

  async addReceiver(
    merchant: Parameters<ProfitSharingCalls['addReceiver']>[0],
    receiver: Parameters<ProfitSharingCalls['addReceiver']>[1],
  ): Promise<ProtocolAnswer> {
    let name: { ciphertext: string; serial: string } | undefined;
    if (receiver.name) {
      const key = await this.keys.encryptionKey();
      name = { ciphertext: encryptSensitive(receiver.name, key.publicKey), serial: key.id };
    }
    return this.exchange(
      addReceiverRequest(merchant, {
        type: receiver.type,
        account: receiver.account,
        relationType: receiver.relationType,
        customRelation: receiver.customRelation,
        name,
      }),
      readDone,
    );
  }

  removeReceiver(merchant: Parameters<ProfitSharingCalls['removeReceiver']>[0], receiver: { type: string; account: string }): Promise<ProtocolAnswer> {
    return this.exchange(removeReceiverRequest(merchant, receiver), readDone);
  }

  split(
    co: PayChannelOrdersTable,
    outOrderNo: string,
    receivers: Array<{ type: string; account: string; amount: number; description: string }>,
    finish: boolean,
  ): Promise<ProtocolAnswer> {
    return this.exchange(splitRequest(merchantOf(co), { transaction_id: co.transaction_id ?? '', out_order_no: outOrderNo, receivers, finish }), readSplit);
  }

  querySplit(co: PayChannelOrdersTable, outOrderNo: string): Promise<ProtocolAnswer> {
    return this.exchange(querySplitRequest(merchantOf(co), co.transaction_id ?? '', outOrderNo), readSplit);
  }

  /** v3 unfreezes whatever is left: the amount the v2 call names is not sent. */
  finishSharing(co: PayChannelOrdersTable, outOrderNo: string, _amount: number, text: string): Promise<ProtocolAnswer> {
    return this.exchange(
      finishRequest(merchantOf(co), { transaction_id: co.transaction_id ?? '', out_order_no: outOrderNo, description: text || '-' }),
      readSplit,
    );
  }

  unsplitAmount(co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.exchange(amountsRequest(co.transaction_id ?? ''), readAmounts);
  }

  private async exchange(req: V3Request, read: (a: V3Answer) => ProtocolAnswer): Promise<ProtocolAnswer> {
    const answer = await this.client().call(req);
    try {
      return read(answer);
    } catch (e) {
      if (e instanceof V3AnswerError) throw new KitError('channel_error', `${e.message}${answer.requestId ? ` (Request-ID ${answer.requestId})` : ''}`);
      throw e;
    }
  }
}
