import { openHandle, sealHandle, type PointsHandleFields } from './points-handle';

const fields: PointsHandleFields = {
  merchantId: 'SMabc',
  uuid: 'A'.repeat(32),
  userId: 'alice',
  tokenId: 'PTS',
  tokenAppId: 'app_t',
  userAppId: 'app_u',
  maxAmount: '12.5',
  expiresAt: 2_000,
};

describe('points session handle', () => {
  it('opens what it sealed, with the same secret, before it expires', () => {
    expect(openHandle(sealHandle(fields, 's3cret'), 's3cret', 1_000)).toEqual(fields);
  });

  it('refuses another secret, an expired handle and any change to the payload', () => {
    const handle = sealHandle(fields, 's3cret');
    expect(openHandle(handle, 'other', 1_000)).toBeNull();
    expect(openHandle(handle, 's3cret', 2_000)).toBeNull();
    const forged = Buffer.from(JSON.stringify({ ...fields, maxAmount: '9999' })).toString('base64url');
    expect(openHandle(`${forged}.${handle.split('.')[1]}`, 's3cret', 1_000)).toBeNull();
    expect(openHandle('garbage', 's3cret', 1_000)).toBeNull();
    expect(openHandle('.', 's3cret', 1_000)).toBeNull();
  });
});
