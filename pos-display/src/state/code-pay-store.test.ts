/** @jest-environment jsdom */
import { createCodePayStore } from './code-pay-store';
import { fakeApi, offline } from '../test/fake-api';
import { translator } from '../i18n/i18n';

const en = translator('en');
const ok = { version: 1 as const, status: 'success' as const };

describe("payer's code store", () => {
  it('says what the code did: paid, waiting until a time, refused with why, cancelled', async () => {
    const api = fakeApi();
    const codes = createCodePayStore(api);
    await codes.getState().pay('P1abc', '134567890123456789');
    expect(api.payCode).toHaveBeenCalledWith('P1abc', '134567890123456789');
    expect(codes.getState()).toMatchObject({ prepayId: 'P1abc', phase: 'paid', channel: 'SocialNative' });

    api.payCode.mockResolvedValueOnce({ ...ok, payment: { result: 'waiting', channel: 'Alipay', confirmUntil: '2026-11-28T10:00:30.000Z' } });
    await codes.getState().pay('P1abc', '280000000000000000');
    expect(codes.getState()).toMatchObject({ phase: 'waiting', channel: 'Alipay', confirmUntil: Date.parse('2026-11-28T10:00:30.000Z') });

    api.payCode.mockResolvedValueOnce({ ...ok, payment: { result: 'refused', reason: 'code', platformCode: 'AUTHCODEEXPIRE' } });
    await codes.getState().pay('P1abc', '134567890123456789');
    expect(codes.getState()).toMatchObject({ phase: 'refused', refusal: { reason: 'code', platformCode: 'AUTHCODEEXPIRE' }, channel: null });

    api.payCode.mockResolvedValueOnce({ ...ok, payment: { result: 'cancelled' } });
    await codes.getState().pay('P1abc', '130000000000000000');
    expect(codes.getState().phase).toBe('cancelled');
  });

  it('a failure is said in words, and an answer for another order is not shown', async () => {
    const api = fakeApi();
    const codes = createCodePayStore(api);
    api.payCode.mockRejectedValueOnce(offline());
    await codes.getState().pay('P1abc', '134567890123456789');
    expect(codes.getState().phase).toBe('failed');
    expect(en(codes.getState().error!)).toMatch(/network|connection|reach/i);
    let release: () => void = () => undefined;
    api.payCode.mockImplementationOnce(
      () => new Promise((resolve) => (release = () => resolve({ ...ok, payment: { result: 'paid', channel: 'SocialNative' } }))),
    );
    const pending = codes.getState().pay('P1abc', '134567890123456789');
    codes.getState().clear('P2def');
    release();
    await pending;
    expect(codes.getState()).toMatchObject({ prepayId: 'P2def', phase: 'idle' });
  });
});
