/**
 * The sandbox's own writers, checked against readers it did not write: its trade bill read by the
 * kit's strict bill reader (a disagreement on the format fails here, not in reconciliation), and
 * its platform certificate read and checked by node's X509Certificate.
 */
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { parseTradeBill } from '@kit/server/payments/providers/social-v3/trade-bill';
import { platformCertificate } from './self-signed';
import { formatTradeBill, type BillLineInput } from './trade-bill';

const base = {
  appId: 'wx5andb0xsp000001',
  mchId: '1900000109',
  subMchId: '1900000001',
  tradeType: 'NATIVE',
  refundId: null,
  outRefundNo: null,
  refundState: null,
};

test('its trade bill is read back line by line, a comma in a name kept, the summary adding up', () => {
  const lines: BillLineInput[] = [
    {
      ...base,
      kind: 'payment',
      time: '2026-11-26 10:00:00',
      transactionId: '4200000001',
      outTradeNo: 'o1',
      body: 'Acme, Inc. 咖啡',
      tradeState: 'SUCCESS',
      amountCents: 1234,
      feeUnits: 7404,
    },
    {
      ...base,
      kind: 'refund',
      time: '2026-11-26 11:00:00',
      transactionId: '4200000001',
      outTradeNo: 'o1',
      body: 'Acme, Inc. 咖啡',
      tradeState: 'REFUND',
      refundId: '5000000001',
      outRefundNo: 'r1',
      refundState: 'SUCCESS',
      amountCents: 234,
    },
  ];
  const text = formatTradeBill(lines);
  expect(text.startsWith('\uFEFF')).toBe(true);
  const bill = parseTradeBill(text);
  expect(bill.lines.map((l) => [l.kind, l.outTradeNo, l.body, l.amountCents, l.settledCents, l.feeUnits])).toEqual([
    ['payment', 'o1', 'Acme, Inc. 咖啡', 1234, 1234, 7404],
    ['refund', 'o1', 'Acme, Inc. 咖啡', 234, 234, 0],
  ]);
  expect(bill.summary).toMatchObject({ count: 2, settledCents: 1234, refundCents: 234, orderCents: 1234, refundRequestedCents: 234 });
});

test('its platform certificate names the serial and validity, and verifies with its own key', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const notBefore = Date.UTC(2026, 0, 1);
  const pem = platformCertificate(privateKey, { commonName: 'Sandbox 支付平台', serial: '8A0F3C2D1E4B5A69', notBefore, notAfter: Date.UTC(2051, 0, 1) });
  const cert = new X509Certificate(pem);
  expect(cert.serialNumber.toUpperCase()).toBe('8A0F3C2D1E4B5A69');
  expect(cert.subject).toContain('Sandbox 支付平台');
  expect(new Date(cert.validFrom).getTime()).toBe(notBefore);
  // After 2049 the end is a GeneralizedTime.
  expect(new Date(cert.validTo).getUTCFullYear()).toBe(2051);
  expect(cert.verify(publicKey)).toBe(true);
  expect(cert.checkPrivateKey(privateKey)).toBe(true);
});
