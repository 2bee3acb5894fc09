import { clockReading } from '@kit/shared/test-clock';
/**
 * The Alipay stand-in's bills read by the kit's Alipay daily bill, on a clock the test moves: two
 * merchants' bills make one day's bill (lines numbered in order, each merchant's account a digest of
 * its authorization); the link works for 30 seconds only; no bill means "not ready" before the next
 * morning (09:00 China time) and "no trade" after it; a day to come answers `isp.bill_not_exist` as
 * Alipay does.
 */
import { generateKeyPairSync } from 'node:crypto';
import { AlipayClient, type AlipayTransport } from '@kit/server/payments/providers/alipay/client';
import { alipayAccountOf, alipayDailyBill } from '@kit/server/payments/providers/alipay/daily-bill';
import { AlipayError } from '@kit/server/payments/providers/alipay/errors';
import type { StoredParams } from '@kit/server/payments/providers/provider';
import { BILL_LINK_TTL_MS, sandboxAlipayAccount } from './sandbox-alipay-bills';
import { SandboxAlipay } from './sandbox-alipay';

const APP_ID = '2021000122671090';
const app = generateKeyPairSync('rsa', { modulusLength: 2048 });
// 2026-11-26 10:00 China time.
let clock = Date.UTC(2026, 10, 26, 2, 0, 0);
const sandbox = new SandboxAlipay({
  appId: APP_ID,
  appPublicKey: app.publicKey,
  clock: clockReading(() => clock),
  post: async () => ({ status: 200, text: 'success' }),
});
const BASE = 'http://sandbox.test/sandbox/alipay';
const transport: AlipayTransport = async (url, init) => ({ status: 200, text: sandbox.gatewayRequest(new URL(url).search, init.body, BASE) ?? '' });
const client = new AlipayClient(
  { appId: APP_ID, privateKey: app.privateKey, trust: { mode: 'public-key', alipayPublicKey: sandbox.publicKey }, gatewayUrl: `${BASE}/gateway.do` },
  { clock: clockReading(() => clock), transport },
);
/** Downloads through the stand-in's link, `delay` ms after it was handed out. */
let delay = 0;
const fetchFile = async (url: string) => {
  clock += delay;
  const zip = sandbox.bills.file(new URL(url).searchParams.get('fileId') ?? '');
  return zip ? { status: 200, body: zip } : { status: 404, body: Buffer.from('expired') };
};
const bill = alipayDailyBill(() => client, { timeoutMs: 5000, clock: clockReading(() => clock), fetchFile });
const merchants = [{ appAuthToken: 'token_merchant_b' }, { appAuthToken: 'token_merchant_a' }, { notifyCallbackUrl: 'http://x.test/cb' }] as StoredParams[];

async function paid(token: string, outTradeNo: string, cents: number) {
  const { qrCode } = await client.precreate({
    appAuthToken: token,
    outTradeNo,
    totalCents: cents,
    subject: 'Shop, with a comma',
    expireAt: clock + 30 * 60_000,
    notifyUrl: 'http://kit.test/pay-notify/alipay',
  });
  await sandbox.scanAndPay(qrCode, 'buyer_1');
}

test("two merchants' bills are one day's bill; a refund gives its fee back", async () => {
  await paid('token_merchant_a', 'A0001', 1000);
  await paid('token_merchant_b', 'B0001', 250);
  await client.refund({ appAuthToken: 'token_merchant_b', outTradeNo: 'B0001', outRequestNo: 'RB0001', refundCents: 250 });
  await sandbox.idle();
  const got = await bill.download('2026-11-26', merchants);
  expect(got.kind).toBe('bill');
  if (got.kind !== 'bill') return;
  const a = alipayAccountOf({ appAuthToken: 'token_merchant_a' } as StoredParams);
  const b = alipayAccountOf({ appAuthToken: 'token_merchant_b' } as StoredParams);
  expect(a).toMatch(/^auth-[0-9a-f]{16}$/);
  expect(got.lines.map((l) => [l.lineNo, l.kind, l.orderNo, l.refundNo, l.status, l.amountCents, l.feeUnits, l.account, l.subAccount])).toEqual([
    [1, 'payment', 'A0001', null, '交易', 1000, 6000, a, sandboxAlipayAccount('token_merchant_a')],
    [2, 'payment', 'B0001', null, '交易', 250, 2000, b, sandboxAlipayAccount('token_merchant_b')],
    [3, 'refund', 'B0001', 'RB0001', '退款', 250, -2000, b, sandboxAlipayAccount('token_merchant_b')],
  ]);
  expect(got.summary).toEqual({ settledCents: 1250, refundCents: 250, feeUnits: 6000 });
  expect(bill.settled('payment', '交易')).toBe(true);
  expect(bill.settled('refund', '交易')).toBe(false);
});

test('the link works for 30 seconds: fetched later, the day cannot be had', async () => {
  delay = BILL_LINK_TTL_MS + 1;
  try {
    await expect(bill.download('2026-11-26', merchants)).rejects.toThrow(/the Alipay bill link of 2026-11-26 of merchant auth-[0-9a-f]{16} answered HTTP 404/);
  } finally {
    delay = 0;
  }
});

test('no bill: "not ready" before 09:00 China time the next day, "no trade" after; a day to come is isp.bill_not_exist', async () => {
  // The stand-in has no bill of a day to come: Alipay's own error, verified like any answer.
  const later = await client
    .call('alipay.data.dataservice.bill.downloadurl.query', 'token_merchant_a', { bill_type: 'trade', bill_date: '2026-11-28' })
    .catch((e) => e);
  expect(later).toBeInstanceOf(AlipayError);
  expect(later).toMatchObject({ failure: 'refused', details: { code: '40004', subCode: 'isp.bill_not_exist', subMsg: '账单不存在' } });
  const monthly = await client
    .call('alipay.data.dataservice.bill.downloadurl.query', 'token_merchant_a', { bill_type: 'trade', bill_date: '2026-11' })
    .catch((e) => e);
  expect(monthly).toMatchObject({ details: { subCode: 'isv.invalid-parameter' } });
  const day = '2026-11-27';
  // 2026-11-28 08:59 China time: the bill of the 27th may still come.
  clock = Date.UTC(2026, 10, 28, 0, 59, 0);
  expect(await bill.download(day, merchants)).toEqual({ kind: 'not_ready', why: 'Alipay makes the bill of a day by 9:00 China time the next day' });
  clock = Date.UTC(2026, 10, 28, 1, 0, 0);
  expect(await bill.download(day, merchants)).toEqual({ kind: 'none' });
  // Nobody paying through Alipay: nothing to ask.
  expect(await bill.download(day, [])).toEqual({ kind: 'none' });
});
