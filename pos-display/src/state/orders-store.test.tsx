/** @jest-environment jsdom */
import { createOrdersStore, startOfToday } from './orders-store';
import { detail, fakeApi, order } from '../test/fake-api';
import { KitApiError } from '@kit/shared/errors';
import { translator } from '../i18n/i18n';

const en = translator('en');
const zh = translator('zh-CN');

const paid = { prepayId: 'Ppaid', amount: '8.00', status: 'finish' as const, createTime: '2024-05-01T10:00:00.000Z', paymentTime: '2024-05-01T10:00:30.000Z' };

describe('orders store', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date(2024, 4, 1, 15, 30) }));
  afterEach(() => jest.useRealTimers());

  it("asks for today's orders from local midnight", async () => {
    const api = fakeApi();
    api.listOrders.mockResolvedValue({ version: 1, status: 'success', orders: [paid] });
    const store = createOrdersStore(api);
    await store.getState().load();
    expect(api.listOrders).toHaveBeenCalledWith(new Date(2024, 4, 1).getTime());
    expect(startOfToday(Date.now())).toBe(new Date(2024, 4, 1).getTime());
    expect(store.getState().orders).toEqual([paid]);
  });

  it('refunds only after confirmation and follows the order until it reads refunded', async () => {
    const api = fakeApi();
    const shared = { ...paid, profitSharing: { state: 'open' as const, sharedAmount: '0.00', maxShareAmount: '2.40' } };
    api.listOrders
      .mockResolvedValueOnce({ version: 1, status: 'success', orders: [shared] })
      .mockResolvedValue({ version: 1, status: 'success', orders: [{ ...paid, status: 'refunded' }] });
    api.refund.mockResolvedValue({ version: 1, status: 'success', detail: detail({ status: 'finish' }) });
    api.getOrder
      .mockResolvedValueOnce({ version: 1, status: 'success', order: order({ prepayId: 'Ppaid', status: 'finish' }) })
      .mockResolvedValue({ version: 1, status: 'success', order: order({ prepayId: 'Ppaid', amount: '8.00', status: 'refunded' }) });
    const store = createOrdersStore(api);
    await store.getState().load();
    store.getState().askRefund('Ppaid');
    store.getState().cancelRefund();
    expect(api.refund).not.toHaveBeenCalled();
    store.getState().askRefund('Ppaid');
    await store.getState().confirmRefund();
    expect(api.refund).toHaveBeenCalledWith('Ppaid');
    expect(store.getState().refunding).toEqual(['Ppaid']);
    await jest.advanceTimersByTimeAsync(500);
    expect(store.getState().refunding).toEqual(['Ppaid']);
    await jest.advanceTimersByTimeAsync(500);
    expect(store.getState().refunding).toEqual([]);
    expect(store.getState().orders[0].status).toBe('refunded');
    // The list is read again once the refund completed: a refunded order can share no more.
    expect(api.listOrders).toHaveBeenCalledTimes(2);
    expect(store.getState().orders[0].profitSharing).toBeUndefined();
    expect(en(store.getState().notice!)).toBe('Order Ppaid refunded (¥8.00).');
    expect(zh(store.getState().notice!)).toBe('订单 Ppaid 已退款（¥8.00）。');
  });

  it('says why a refund was refused and leaves the line as it was', async () => {
    const api = fakeApi();
    api.listOrders.mockResolvedValue({ version: 1, status: 'success', orders: [paid] });
    api.refund.mockRejectedValue(new KitApiError(409, { status: 'fail', error: 'order_already_refunded', msg: 'The order was already refunded' }));
    const store = createOrdersStore(api);
    await store.getState().load();
    store.getState().askRefund('Ppaid');
    await store.getState().confirmRefund();
    // The catalogue's words for the error id, not the service's developer message.
    expect(en(store.getState().error!)).toBe('Refund of order Ppaid failed. This order was already refunded.');
    expect(zh(store.getState().error!)).toBe('订单 Ppaid 退款失败。该订单已经退款。');
    expect(store.getState().orders[0].status).toBe('finish');
    expect(store.getState().refunding).toEqual([]);
  });
});
