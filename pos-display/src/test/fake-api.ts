/**
 * A stand-in for the POS router in component and store tests (the real router is exercised over
 * HTTP in server and browser tests). Every method is a jest.fn with a sensible default.
 */
import { KitApiError, KitNetworkError } from '@kit/shared/errors';
import type { PosOrder, PosSession, PosWaitResponse } from '@kit/shared/api/pos';
import type { PosApi } from '../api/client';

export const SESSION: PosSession = { merchantId: 'SMshop1', displayName: 'Corner Shop', parentMerchantId: 'PMparent' };

export function order(over: Partial<PosOrder> = {}): PosOrder {
  const prepayId = over.prepayId ?? 'P1abc';
  return {
    prepayId,
    amount: '12.34',
    merchantName: 'Corner Shop',
    status: 'active',
    createTime: '2024-05-01T10:00:00.000Z',
    scene: `sm.pay?prepayid=${prepayId}`,
    miniProgramCode: 'link',
    miniProgramLink: `https://kit.example/mp/#/pages/pay/index?scene=${encodeURIComponent(`sm.pay?prepayid=${prepayId}`)}`,
    payerLink: `https://kit.example/p/${prepayId}`,
    scannedWith: { miniProgram: 'social', scanCode: 'social' },
    codeUrl: 'weixin://wxpay/bizpayurl?pr=abc123',
    ...over,
  };
}

export function detail(over: Partial<PosWaitResponse> = {}): PosWaitResponse {
  return {
    version: 1,
    status: 'active',
    merchantDisplayName: 'Corner Shop',
    totalAmount: '12.34',
    disconut: '0.00',
    createTime: '2024-05-01T10:00:00.000Z',
    ...over,
  };
}

export const unauthorized = () => new KitApiError(401, { status: 'fail', error: 'login_invalid', msg: 'The login is not valid' });
export const notFound = () => new KitApiError(404, { status: 'fail', error: 'not_found', msg: 'prepay order does not exist' });
export const offline = () => new KitNetworkError('the network is unreachable');

/** A promise you settle later, for held calls. */
export function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export type FakeApi = { [K in keyof PosApi]: jest.Mock<ReturnType<PosApi[K]>, Parameters<PosApi[K]>> };

export function fakeApi(): FakeApi {
  const ok = { version: 1 as const, status: 'success' as const };
  return {
    login: jest.fn(async () => ({ ...ok, session: SESSION })),
    logout: jest.fn(async () => undefined),
    session: jest.fn(async () => ({ ...ok, session: SESSION })),
    createOrder: jest.fn(async (amount: string) => ({ ...ok, order: order({ amount }) })),
    getOrder: jest.fn(async (prepayId: string) => ({ ...ok, order: order({ prepayId }) })),
    // By default a held call that never ends (until aborted).
    waitOrder: jest.fn(
      (_id: string, signal?: AbortSignal) =>
        new Promise<PosWaitResponse>((_r, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')))),
    ),
    listOrders: jest.fn(async () => ({ ...ok, orders: [] })),
    // A 1×1 PNG: the platform's drawing is not the display's business.
    miniProgramCode: jest.fn(
      async () => 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    ),
    refund: jest.fn(async () => ({ ...ok, detail: detail({ status: 'refunded' }) })),
    payCode: jest.fn(async () => ({ ...ok, payment: { result: 'paid' as const, channel: 'SocialNative' as const } })),
    balance: jest.fn(async (q) => ({
      ...ok,
      balance: '100.00000',
      tokenId: q.tokenId,
      tokenAppId: q.tokenAppId ?? 'app_shop',
      userAppId: 'app_shop',
      userId: q.userId,
    })),
    startPoints: jest.fn(async (req) => ({
      ...ok,
      balance: '100.00000',
      session: {
        handle: 'h.1',
        uuid: 'U'.repeat(32),
        userId: req.userId,
        tokenId: req.tokenId,
        tokenAppId: 'app_shop',
        userAppId: 'app_shop',
        maxAmount: req.maxAmount,
        expiresAt: Date.now() + 600_000,
      },
    })),
    pointsCode: jest.fn(async () => ({
      ...ok,
      code: { chainLink: `KP1.code-${Math.random()}`, spent: false, balance: '100.00000', validForMs: 20_000, refreshEveryMs: 5_000 },
    })),
  } as unknown as FakeApi;
}
