/**
 * A stand-in for `@tarojs/taro` in Jest (Taro's own docs mock the module the same way): `request`
 * answers from a table of fake routes, and `login` / `requestPayment` are plain jest mocks.
 */
export interface FakeAnswer {
  statusCode: number;
  data: unknown;
}
export type FakeRoute = (req: { url: string; method: string; data?: unknown }) => FakeAnswer | Promise<FakeAnswer>;

export interface RecordedCall {
  url: string;
  method: string;
  data?: unknown;
  timeout?: number;
}

export function createTaroMock() {
  const calls: RecordedCall[] = [];
  let route: FakeRoute = () => ({ statusCode: 404, data: { status: 'fail', error: 'route_not_found' } });
  const storage = new Map<string, unknown>();
  const taro = {
    request: jest.fn((opts: { url: string; method?: string; data?: unknown; timeout?: number }) => {
      const req = { url: opts.url, method: opts.method ?? 'GET', data: opts.data, timeout: opts.timeout };
      calls.push(req);
      const task = Promise.resolve().then(() => route(req));
      return Object.assign(task, { abort: jest.fn() });
    }),
    login: jest.fn(async () => ({ code: 'wx-code-1', errMsg: 'login:ok' })),
    requestPayment: jest.fn(async () => ({ errMsg: 'requestPayment:ok' })),
    /** The Alipay build's calls (`my.getAuthCode`, `my.tradePay`). */
    getAuthCode: jest.fn(async () => ({ authCode: 'ali-auth-1' })),
    tradePay: jest.fn(async (_opts: { tradeNO: string }) => ({ resultCode: '9000' })),
    getStorageSync: jest.fn((key: string) => storage.get(key) ?? ''),
    getSystemInfoSync: jest.fn(() => ({ language: 'en' })),
    setNavigationBarTitle: jest.fn(async () => ({ errMsg: 'setNavigationBarTitle:ok' })),
    setStorageSync: jest.fn((key: string, value: unknown) => void storage.set(key, value)),
  };
  return {
    taro,
    calls,
    setRoute(next: FakeRoute) {
      route = next;
    },
  };
}

export const activeOrder = (over: Record<string, unknown> = {}) => ({
  version: 1,
  status: 'active',
  prepayId: 'ABC123def456',
  merchantDisplayName: 'Corner Shop',
  totalAmount: '12.34',
  disconut: '0.00',
  createTime: '2025-01-01T00:00:00.000Z',
  ...over,
});

/** 4.4 arguments as the service gives them on API v3 (its default): RSA `paySign`, base64. */
export const payArgs = {
  timeStamp: 1700000000,
  nonceStr: 'n0nce',
  package: 'prepay_id=wx123456789',
  signType: 'RSA',
  paySign: 'S2l0IFJTQSBwYXlTaWduIG92ZXIgYXBwSWQsIHRpbWVTdGFtcCwgbm9uY2VTdHIsIHBhY2thZ2U=',
};
