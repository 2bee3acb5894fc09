import { createDecipheriv, hkdfSync } from 'node:crypto';
import { DonationDecryptError, decryptDonation, decryptDonationContent, encryptDonation, encryptDonationContent } from './donation-crypto';

const SECRET = 'app-secret-for-tests';

describe('donation encryption', () => {
  test('round trip, and only the AppSecret decrypts', () => {
    const record = { id: 'p1', title: 'Clean water 清水', targetAmount: ['1.00 RMB', '2.00 RMB'] };
    const ct = encryptDonationContent(SECRET, record);
    expect(ct.startsWith('dn1.')).toBe(true);
    expect(ct).not.toContain('Clean');
    expect(decryptDonationContent(SECRET, ct)).toEqual(record);
    expect(() => decryptDonation('another-secret', ct)).toThrow(DonationDecryptError);
  });

  test('deterministic: same secret and content give the same text; anything else differs', () => {
    const a = encryptDonationContent(SECRET, { id: '1', b: 2, a: 1 });
    expect(encryptDonationContent(SECRET, { a: 1, id: '1', b: 2 })).toBe(a);
    expect(encryptDonationContent(SECRET, { a: 1, id: '1', b: 3 })).not.toBe(a);
    expect(encryptDonationContent('other', { a: 1, id: '1', b: 2 })).not.toBe(a);
  });

  test('is plain AES-256-GCM under HKDF-SHA256(AppSecret), as documented', () => {
    const ct = encryptDonation(SECRET, 'hello');
    const raw = Buffer.from(ct.slice(4), 'base64url');
    const key = Buffer.from(hkdfSync('sha256', Buffer.from(SECRET), 'kit-donation-v1', 'enc', 32));
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(raw.length - 16));
    expect(Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString()).toBe('hello');
  });

  test('damaged or foreign text is refused', () => {
    const ct = encryptDonation(SECRET, 'hello');
    const flipped = ct.slice(0, -2) + (ct.endsWith('A') ? 'B' : 'A') + ct.slice(-1);
    expect(() => decryptDonation(SECRET, flipped)).toThrow(DonationDecryptError);
    expect(() => decryptDonation(SECRET, 'dn1.AAAA')).toThrow(/too short/);
    expect(() => decryptDonation(SECRET, 'plain text')).toThrow(/must start with/);
  });
});
