/** @jest-environment jsdom */
import { createPointsStore, secondsLeft, secondsToNext } from './points-store';
import { fakeApi, offline } from '../test/fake-api';
import { KitApiError } from '@kit/shared/errors';
import { translator } from '../i18n/i18n';

const en = translator('en');

const FORM = { userId: 'alice', tokenId: 'PTS', tokenAppId: '', maxAmount: '5' };

describe('points store', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2024-05-01T10:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  function running() {
    const api = fakeApi();
    let n = 0;
    api.pointsCode.mockImplementation(async () => {
      n += 1;
      return {
        version: 1,
        status: 'success',
        code: { chainLink: `KP1.code-${n}`, spent: false, balance: '100.00000', validForMs: 20_000, refreshEveryMs: 5_000 },
      };
    });
    const points = createPointsStore(api);
    points.getState().setForm(FORM);
    return { api, points };
  }

  it('checks the form before starting', async () => {
    const api = fakeApi();
    const points = createPointsStore(api);
    points.getState().setForm({ ...FORM, maxAmount: '1.234567' });
    await points.getState().start();
    expect(en(points.getState().formError!)).toBe('Points to deduct: At most 5 decimals.');
    points.getState().setForm({ ...FORM, userId: ' ' });
    await points.getState().start();
    expect(en(points.getState().formError!)).toMatch(/member code/);
    expect(api.startPoints).not.toHaveBeenCalled();
  });

  it('shows a fresh code every 5 s for the same session, counting down to the next; each stays valid 20 s', async () => {
    const { api, points } = running();
    await points.getState().start();
    expect(api.startPoints).toHaveBeenCalledWith({ userId: 'alice', tokenId: 'PTS', tokenAppId: undefined, maxAmount: '5' });
    expect(points.getState().phase).toBe('running');
    expect(points.getState().code?.content).toBe('KP1.code-1');
    expect(secondsLeft(points.getState().code, points.getState().now)).toBe(20);
    expect(secondsToNext(points.getState().code, points.getState().now)).toBe(5);

    await jest.advanceTimersByTimeAsync(3_000);
    expect(secondsLeft(points.getState().code, points.getState().now)).toBe(17);
    expect(secondsToNext(points.getState().code, points.getState().now)).toBe(2);
    expect(api.pointsCode).toHaveBeenCalledTimes(1);

    await jest.advanceTimersByTimeAsync(2_000);
    expect(api.pointsCode).toHaveBeenCalledTimes(2);
    expect(points.getState().code?.content).toBe('KP1.code-2');
    expect(secondsLeft(points.getState().code, points.getState().now)).toBe(20);
    expect(secondsToNext(points.getState().code, points.getState().now)).toBe(5);

    await jest.advanceTimersByTimeAsync(10_000);
    expect(api.pointsCode).toHaveBeenCalledTimes(4);
    // The same sealed session (same uuid) every time.
    expect(new Set(api.pointsCode.mock.calls.map((c) => c[0]))).toEqual(new Set(['h.1']));
  });

  it('keeps the last code while refreshes fail, until its 20 s run out', async () => {
    const { api, points } = running();
    await points.getState().start();
    api.pointsCode.mockRejectedValue(offline());
    await jest.advanceTimersByTimeAsync(5_000);
    expect(en(points.getState().network!)).toMatch(/Network problem/);
    expect(points.getState().code?.content).toBe('KP1.code-1');
    expect(secondsLeft(points.getState().code, points.getState().now)).toBe(15);
    await jest.advanceTimersByTimeAsync(15_000);
    expect(secondsLeft(points.getState().code, points.getState().now)).toBe(0);
    // Still trying every 5 s; the next answer brings a valid code back.
    api.pointsCode.mockResolvedValue({
      version: 1,
      status: 'success',
      code: { chainLink: 'KP1.back', spent: false, balance: '100.00000', validForMs: 20_000, refreshEveryMs: 5_000 },
    });
    await jest.advanceTimersByTimeAsync(5_000);
    expect(points.getState().code?.content).toBe('KP1.back');
    expect(points.getState().network).toBeNull();
  });

  it('stops refreshing and counting when left', async () => {
    const { api, points } = running();
    await points.getState().start();
    points.getState().stop();
    const now = points.getState().now;
    await jest.advanceTimersByTimeAsync(30_000);
    expect(api.pointsCode).toHaveBeenCalledTimes(1);
    expect(points.getState().now).toBe(now);
    expect(points.getState().phase).toBe('form');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('ends when the router refuses the session, and finishes when the balance drops', async () => {
    const { api, points } = running();
    await points.getState().start();
    api.pointsCode.mockRejectedValueOnce(
      new KitApiError(400, { status: 'fail', error: 'pos_points_session_invalid', msg: 'The points session is unknown or has ended; start it again' }),
    );
    await jest.advanceTimersByTimeAsync(5_000);
    expect(points.getState().phase).toBe('ended');
    expect(en(points.getState().message!)).toBe('This points code session has ended. Start it again.');
    expect(jest.getTimerCount()).toBe(0);

    await points.getState().start();
    api.pointsCode.mockResolvedValue({
      version: 1,
      status: 'success',
      code: { chainLink: 'KP1.after', spent: false, balance: '97.50000', validForMs: 20_000, refreshEveryMs: 5_000 },
    });
    await jest.advanceTimersByTimeAsync(5_000);
    expect(points.getState()).toMatchObject({ phase: 'done', startBalance: '100.00000', balance: '97.50000' });
    expect(jest.getTimerCount()).toBe(0);
  });

  it('finishes when the router answers that the session uuid is spent', async () => {
    const { api, points } = running();
    await points.getState().start();
    api.pointsCode.mockResolvedValue({
      version: 1,
      status: 'success',
      code: { chainLink: null, spent: true, balance: '95.00000', validForMs: 20_000, refreshEveryMs: 5_000 },
    });
    await jest.advanceTimersByTimeAsync(5_000);
    expect(points.getState()).toMatchObject({ phase: 'done', balance: '95.00000', code: null });
    expect(jest.getTimerCount()).toBe(0);
  });

  it('finishes when the router refuses with uuid_spent, showing the balance after it', async () => {
    const { api, points } = running();
    await points.getState().start();
    api.pointsCode.mockRejectedValue(new KitApiError(409, { status: 'fail', error: 'uuid_spent', msg: 'uuid was already spent' }));
    api.balance.mockResolvedValue({
      version: 1,
      status: 'success',
      balance: '90.00000',
      tokenId: 'PTS',
      tokenAppId: 'app_shop',
      userAppId: 'app_shop',
      userId: 'alice',
    });
    await jest.advanceTimersByTimeAsync(5_000);
    expect(points.getState()).toMatchObject({ phase: 'done', balance: '90.00000', startBalance: '100.00000' });
    expect(api.balance).toHaveBeenCalledWith({ userId: 'alice', tokenId: 'PTS', tokenAppId: 'app_shop' });
    expect(jest.getTimerCount()).toBe(0);
  });

  it('remembers the shop’s point type for the next customer and reload, and starts the next customer blank', async () => {
    const { api } = running();
    const saved = new Map<string, string>();
    const storage = { getItem: (k: string) => saved.get(k) ?? null, setItem: (k: string, v: string) => void saved.set(k, v) };
    const points = createPointsStore(api, { storage });
    expect(points.getState().form).toEqual({ userId: '', tokenId: '', tokenAppId: '', maxAmount: '' });
    points.getState().setForm({ ...FORM, tokenAppId: 'app_other' });
    await points.getState().start();
    api.pointsCode.mockResolvedValue({
      version: 1,
      status: 'success',
      code: { chainLink: null, spent: true, balance: '95.00000', validForMs: 20_000, refreshEveryMs: 5_000 },
    });
    await jest.advanceTimersByTimeAsync(5_000);
    expect(points.getState().phase).toBe('done');
    // Next customer: nothing of the last one is left; the point type stays.
    points.getState().stop();
    expect(points.getState()).toMatchObject({ phase: 'form', balance: null, form: { userId: '', maxAmount: '', tokenId: 'PTS', tokenAppId: 'app_other' } });
    // A reloaded display knows the point type too.
    expect(createPointsStore(api, { storage }).getState().form).toEqual({ userId: '', maxAmount: '', tokenId: 'PTS', tokenAppId: 'app_other' });
  });
});
