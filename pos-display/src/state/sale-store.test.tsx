/** @jest-environment jsdom */
import { createSaleStore } from './sale-store';
import { deferred, detail, fakeApi, notFound, offline, order } from '../test/fake-api';
import type { PrepayDetail } from '@kit/shared/api/prepay';
import { translator } from '../i18n/i18n';

const en = translator('en');

const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('sale store', () => {
  it('sends only an amount the service rule accepts, formatted', async () => {
    const api = fakeApi();
    const sale = createSaleStore(api);
    for (const k of ['0', '.', '0'] as const) sale.getState().press(k);
    expect(await sale.getState().submit()).toBeNull();
    expect(api.createOrder).not.toHaveBeenCalled();
    sale.getState().setAmount('12.3');
    expect(await sale.getState().submit()).toBe('P1abc');
    expect(api.createOrder).toHaveBeenCalledWith('12.30');
    expect(sale.getState().order?.amount).toBe('12.30');
  });

  it('waits with the long-poll loop: re-calls at once after each held answer and shows the payment', async () => {
    const api = fakeApi();
    const calls: Array<ReturnType<typeof deferred<PrepayDetail>>> = [];
    api.waitOrder.mockImplementation(() => {
      const d = deferred<PrepayDetail>();
      calls.push(d);
      return d.promise;
    });
    const sale = createSaleStore(api);
    sale.getState().setAmount('12.34');
    const id = (await sale.getState().submit())!;
    await sale.getState().open(id);
    expect(calls).toHaveLength(1);
    calls[0].resolve(detail());
    await settle();
    // Still active: the next held call went out immediately.
    expect(calls).toHaveLength(2);
    expect(sale.getState().waiting).toBe(true);
    calls[1].resolve(detail({ status: 'finish', paymentTime: '2024-05-01T10:01:02.345Z' }));
    await settle();
    expect(calls).toHaveLength(2);
    expect(sale.getState().order).toMatchObject({ status: 'finish', paymentTime: '2024-05-01T10:01:02.345Z' });
    expect(sale.getState().waiting).toBe(false);
  });

  it('keeps waiting across network errors and says so until an answer comes', async () => {
    const api = fakeApi();
    let n = 0;
    api.waitOrder.mockImplementation(async () => {
      n += 1;
      if (n === 1) throw offline();
      if (n === 2) return detail();
      return detail({ status: 'finish', paymentTime: '2024-05-01T10:01:02.345Z' });
    });
    const sale = createSaleStore(api);
    const seen: Array<string | null> = [];
    sale.subscribe((s) => seen.push(s.network && en(s.network)));
    await sale.getState().open('P1abc');
    await settle();
    expect(n).toBe(3);
    expect(seen.some((m) => m !== null && /Network problem/.test(m))).toBe(true);
    expect(sale.getState().network).toBeNull();
    expect(sale.getState().order?.status).toBe('finish');
  });

  it('shows an expired order as expired and stops waiting', async () => {
    const api = fakeApi();
    api.waitOrder.mockResolvedValue(detail({ status: 'cancel' }));
    const sale = createSaleStore(api);
    await sale.getState().open('P1abc');
    await settle();
    expect(sale.getState().order?.status).toBe('cancel');
    expect(api.waitOrder).toHaveBeenCalledTimes(1);
  });

  it('restores an order after a reload and does not wait for one that is already paid', async () => {
    const api = fakeApi();
    api.getOrder.mockResolvedValue({
      version: 1,
      status: 'success',
      order: order({ prepayId: 'Pdone', status: 'finish', paymentTime: '2024-05-01T10:01:00.000Z' }),
    });
    const sale = createSaleStore(api);
    await sale.getState().open('Pdone');
    expect(sale.getState().order?.status).toBe('finish');
    expect(sale.getState().amountText).toBe('12.34');
    expect(api.waitOrder).not.toHaveBeenCalled();
  });

  it('says so when the order does not exist', async () => {
    const api = fakeApi();
    api.getOrder.mockRejectedValue(notFound());
    const sale = createSaleStore(api);
    await sale.getState().open('Pmissing');
    expect(en(sale.getState().error!)).toBe('This order does not exist.');
  });

  it('stops the held call when the screen is left', async () => {
    const api = fakeApi();
    const sale = createSaleStore(api);
    await sale.getState().open('P1abc');
    const signal = api.waitOrder.mock.calls[0][1]!;
    expect(signal.aborted).toBe(false);
    sale.getState().stop();
    expect(signal.aborted).toBe(true);
    await settle();
    expect(api.waitOrder).toHaveBeenCalledTimes(1);
  });
});
