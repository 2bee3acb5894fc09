/** The channel order the bench's tests build notifications for. */
import type { ChannelOrder } from './lib/notifications';

export const TEST_ORDER: ChannelOrder = {
  prepayId: 'P1',
  outTradeNo: 'T20261124000001',
  totalCents: 100,
  signType: 'HMAC-SHA256',
  merchant: { appid: 'wx5andb0xsp000001', mch_id: '1900000109', sub_mch_id: '1900000110' },
};
