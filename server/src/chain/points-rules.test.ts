import { randomBytes } from 'node:crypto';
import { DeductionCodes } from './deduction-code';
import { PointsState, applyPointsTx, touches, type PointsTx } from './points-rules';
import { acceptedItem } from './actions';

const codes = new DeductionCodes(randomBytes(32));
const T = 'app_token';
const U = 'app_user';
let seq = 0;
const tx = (appId: string, type: string, args: Record<string, unknown>, acceptedAt = 1_000_000): PointsTx => ({
  seq: ++seq,
  appId,
  acceptedAt,
  ...acceptedItem(type, { id: `i${seq}`, ...args }),
});
const acct = (userId: string) => ({ tokenAppId: T, tokenId: 'PTS', userAppId: U, userId });

function fresh() {
  const s = new PointsState();
  expect(applyPointsTx(s, tx(T, 'points.create', { tokenId: 'PTS', name: 'Points' }), codes)).toEqual({ ok: true });
  return s;
}
const codeFor = (userId: string, maxUnits: number, issuedAt = 1_000_000, uuid = randomBytes(16).toString('hex')) =>
  codes.mint({ tokenAppId: T, tokenId: 'PTS', userAppId: U, userId, maxUnits, uuid, issuedAt });

describe('points rules', () => {
  test('create once; issue only to existing types by the issuer', () => {
    const s = fresh();
    expect(applyPointsTx(s, tx(T, 'points.create', { tokenId: 'PTS', name: 'Again' }), codes)).toMatchObject({ ok: false, reason: /already exists/ });
    expect(applyPointsTx(s, tx(T, 'points.issue', { tokenId: 'NOPE', userAppId: U, userId: 'a', amount: '1' }), codes)).toMatchObject({ ok: false });
    expect(applyPointsTx(s, tx('app_other', 'points.issue', { tokenId: 'PTS', tokenAppId: T, userAppId: U, userId: 'a', amount: '1' }), codes)).toMatchObject({
      ok: false,
      reason: /issuing app/,
    });
    expect(applyPointsTx(s, tx(T, 'points.issue', { tokenId: 'PTS', userAppId: U, userId: 'a', amount: '1.00001' }), codes)).toEqual({ ok: true });
    expect(s.balance(acct('a'))).toBe(100_001);
  });

  test('transfer needs the sender app and enough balance; a failure changes nothing', () => {
    const s = fresh();
    applyPointsTx(s, tx(T, 'points.issue', { tokenId: 'PTS', userAppId: U, userId: 'a', amount: '5' }), codes);
    const move = (appId: string, amount: string) =>
      applyPointsTx(
        s,
        tx(appId, 'points.transfer', { tokenId: 'PTS', tokenAppId: T, from: { userAppId: U, userId: 'a' }, to: { userAppId: U, userId: 'b' }, amount }),
        codes,
      );
    expect(move(T, '1')).toMatchObject({ ok: false, reason: /sender/ });
    expect(move(U, '5.00001')).toMatchObject({ ok: false, reason: /overdraw/ });
    expect([s.balance(acct('a')), s.balance(acct('b'))]).toEqual([500_000, 0]);
    expect(move(U, '5')).toEqual({ ok: true });
    expect([s.balance(acct('a')), s.balance(acct('b'))]).toEqual([0, 500_000]);
  });

  test('chainPay: age, maxAmount, balance, and the uuid spent once', () => {
    const s = fresh();
    applyPointsTx(s, tx(T, 'points.issue', { tokenId: 'PTS', userAppId: U, userId: 'a', amount: '10' }), codes);
    const pay = (code: string, amount: string, acceptedAt = 1_000_000) => applyPointsTx(s, tx('app_shop', 'chainPay', { code, amount }, acceptedAt), codes);
    const c = codeFor('a', 300_000);
    expect(pay(c, '3.00001')).toMatchObject({ ok: false, reason: /maxAmount/ });
    expect(pay(c, '1', 1_000_000 + 20_001)).toMatchObject({ ok: false, reason: /expired/ });
    expect(pay(c, '1', 1_000_000 + 20_000)).toEqual({ ok: true });
    expect(pay(c, '1')).toMatchObject({ ok: false, reason: /already spent/ });
    expect(pay(codeFor('a', 2_000_000), '10.00001')).toMatchObject({ ok: false, reason: /maxAmount/ });
    expect(pay(codeFor('a', 2_000_000), '9.00001')).toMatchObject({ ok: false, reason: /overdraw/ });
    expect(pay(codeFor('a', 300_000, 1_000_000 + 120_000), '1')).toMatchObject({ ok: false, reason: /future/ });
    expect(pay('KP1.forged.code', '1')).toMatchObject({ ok: false, reason: /authentic/ });
    expect(s.balance(acct('a'))).toBe(900_000);
    expect([...s.newSpent]).toHaveLength(1);
  });

  test('touches names what an item reads, for bulk loading', () => {
    const c = codeFor('z', 5, 1, 'u'.repeat(32));
    expect(touches(tx('app_shop', 'chainPay', { code: c, amount: '1' }), codes)).toEqual({
      types: [[T, 'PTS']],
      accounts: [expect.objectContaining(acct('z'))],
      uuids: ['u'.repeat(32)],
    });
    expect(touches(tx('app_shop', 'chainPay', { code: 'bad', amount: '1' }), codes)).toEqual({ types: [], accounts: [], uuids: [] });
  });
});

describe('deduction codes', () => {
  test('read back what was minted; altered, truncated or foreign codes read as null', () => {
    const claims = {
      tokenAppId: T,
      tokenId: 'PTS',
      userAppId: U,
      userId: 'alice bob/中',
      maxUnits: 1_250_000,
      uuid: 'a'.repeat(32),
      issuedAt: 1_700_000_000_000,
    };
    const code = codes.mint(claims);
    expect(codes.read(code)).toEqual(claims);
    expect(code.length).toBeLessThan(250);
    expect(codes.read(code.slice(0, -1))).toBeNull();
    expect(codes.read(code.replace('KP1.', 'KP2.'))).toBeNull();
    expect(new DeductionCodes(randomBytes(32)).read(code)).toBeNull();
    const [payload, mac] = code.slice(4).split('.');
    const raised = JSON.parse(Buffer.from(payload, 'base64url').toString());
    raised[4] = 99_999_999;
    expect(codes.read(`KP1.${Buffer.from(JSON.stringify(raised)).toString('base64url')}.${mac}`)).toBeNull();
    expect(codes.read(42)).toBeNull();
  });
});
