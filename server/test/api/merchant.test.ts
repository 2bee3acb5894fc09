import http from 'node:http';
/** 4.16 login, 4.17 create merchant, 4.7 payment parameters, through real HTTP on every backend. */
import { KitClient } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';

describeEachBackend('merchants', (backend) => {
  let kit: TestKit;
  let owner: Awaited<ReturnType<TestKit['newApp']>>;
  let other: Awaited<ReturnType<TestKit['newApp']>>;
  beforeAll(async () => {
    kit = await startTestKit(backend);
    owner = await kit.newApp();
    other = await kit.newApp();
  });
  afterAll(() => kit.close());

  describe('create (4.17)', () => {
    it('creates a parent and a sub-merchant with PM / SM ids', async () => {
      const { parentId, subId } = await createMerchants(owner.client, owner.appId);
      expect(parentId).toMatch(/^PM[0-9A-Za-z]+$/);
      expect(subId).toMatch(/^SM[0-9A-Za-z]+$/);
    });

    it('lets the owner appId differ from the signer', async () => {
      const res = await other.client.createMerchant({ type: 'merchant', parameters: { displayName: 'Owned by owner', pw: 'password123', appId: owner.appId } });
      const row = await kit.runtime.services.merchants.find(res.data.id);
      expect(row).toMatchObject({ app_id: owner.appId, created_by_app_id: other.appId });
    });

    it('answers in the specification shape', async () => {
      const a = await owner.client.call('POST', '/merchant', {
        body: { type: 'merchant', parameters: { displayName: 'X', pw: 'password123', appId: owner.appId } },
      });
      expect(a.httpStatus).toBe(200);
      expect(a.body).toEqual({ version: 1, status: 'success', data: { id: expect.stringMatching(/^PM/) } });
    });

    it.each([
      ['no type', { parameters: { displayName: 'X', pw: 'password123', appId: 'a' } }, /type/],
      ['an unknown type', { type: 'shop', parameters: {} }, /type/],
      ['an empty display name', { type: 'merchant', parameters: { displayName: ' ', pw: 'password123', appId: 'x' } }, /displayName/],
      ['a short password', { type: 'merchant', parameters: { displayName: 'X', pw: 'short', appId: 'x' } }, /pw/],
      [
        'a parent id on a parent',
        { type: 'merchant', parameters: { displayName: 'X', pw: 'password123', appId: 'x', parentMerchantId: 'PM1' } },
        /parentMerchantId/,
      ],
      ['no parent on a sub-merchant', { type: 'subMerchant', parameters: { displayName: 'X', pw: 'password123', appId: 'x' } }, /parentMerchantId/],
      ['disabled as a string', { type: 'merchant', parameters: { displayName: 'X', pw: 'password123', appId: 'x', disabled: 'no' } }, /disabled/],
    ])('refuses %s with 400 and a clear message', async (_what, body, msg) => {
      const a = await owner.client.call('POST', '/merchant', { body });
      expect(a.httpStatus).toBe(400);
      expect(a.body).toMatchObject({ version: 1, status: 'fail', error: 'invalid_request', msg: expect.stringMatching(msg) });
    });

    it('refuses an unknown owner app, an unknown parent, and a parent the signer has nothing to do with', async () => {
      const unknownApp = await owner.client.call('POST', '/merchant', {
        body: { type: 'merchant', parameters: { displayName: 'X', pw: 'password123', appId: 'app_nope' } },
      });
      expect(unknownApp).toMatchObject({ httpStatus: 400, body: { error: 'unknown_app' } });
      const unknownParent = await owner.client.call('POST', '/merchant', {
        body: { type: 'subMerchant', parameters: { displayName: 'X', pw: 'password123', appId: owner.appId, parentMerchantId: 'PMdoesnotexist' } },
      });
      expect(unknownParent).toMatchObject({ httpStatus: 400, body: { error: 'unknown_merchant' } });
      const { parentId } = await createMerchants(owner.client, owner.appId);
      const foreign = await other.client.call('POST', '/merchant', {
        body: { type: 'subMerchant', parameters: { displayName: 'X', pw: 'password123', appId: other.appId, parentMerchantId: parentId } },
      });
      expect(foreign).toMatchObject({ httpStatus: 401, body: { error: 'not_owner' } });
    });

    it('refuses a sub-merchant as a parent', async () => {
      const { subId } = await createMerchants(owner.client, owner.appId);
      const a = await owner.client.call('POST', '/merchant', {
        body: { type: 'subMerchant', parameters: { displayName: 'X', pw: 'password123', appId: owner.appId, parentMerchantId: subId } },
      });
      expect(a.httpStatus).toBe(400);
    });

    it('is signed: an unsigned call is 401 and creates nothing', async () => {
      const unsigned = new KitClient({ baseUrl: kit.url, appId: owner.appId, appSecret: 'wrong-secret' });
      const before = await kit.runtime.db.db
        .selectFrom('merchants')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst();
      const a = await unsigned.call('POST', '/merchant', {
        body: { type: 'merchant', parameters: { displayName: 'X', pw: 'password123', appId: owner.appId } },
      });
      expect(a).toMatchObject({ httpStatus: 401, body: { status: 'fail', error: 'signature_mismatch' } });
      const after = await kit.runtime.db.db
        .selectFrom('merchants')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst();
      expect(Number(after!.n)).toBe(Number(before!.n));
    });
  });

  describe('login (4.16)', () => {
    it('logs in a sub-merchant and a parent merchant', async () => {
      const { parentId, subId, pw } = await createMerchants(owner.client, owner.appId, { parent: 'Acme', sub: 'Acme Store 1' });
      const sub = await owner.client.login(subId, pw);
      expect(sub).toEqual({
        version: 1,
        status: 'success',
        displayName: 'Acme Store 1',
        userId: subId,
        loginToken: expect.any(String),
        parentMerchantId: parentId,
      });
      const parent = await owner.client.login(parentId, pw);
      expect(parent).toMatchObject({ displayName: 'Acme', userId: parentId, parentMerchantId: null });
      expect(parent.loginToken).not.toBe(sub.loginToken);
      expect(sub.loginToken.length).toBeGreaterThanOrEqual(40);
    });

    it('fails with status fail, error and msg for a wrong password or unknown user, alike', async () => {
      const { subId } = await createMerchants(owner.client, owner.appId);
      const wrong = await owner.client.call('POST', '/merchant/login', { unsigned: true, body: { userId: subId, pw: 'nope-nope' } });
      const unknown = await owner.client.call('POST', '/merchant/login', { unsigned: true, body: { userId: 'SMnobody', pw: 'nope-nope' } });
      for (const a of [wrong, unknown]) {
        expect(a.httpStatus).toBe(401);
        expect(a.body).toMatchObject({ version: 1, status: 'fail', error: 'login_failed', msg: expect.any(String) });
        expect(a.body).not.toHaveProperty('loginToken');
      }
      expect(wrong.body.msg).toBe(unknown.body.msg);
    });

    it('refuses a disabled merchant', async () => {
      const pw = 'password123';
      const pm = await owner.client.createMerchant({ type: 'merchant', parameters: { displayName: 'Closed', pw, appId: owner.appId, disabled: true } });
      const a = await owner.client.call('POST', '/merchant/login', { unsigned: true, body: { userId: pm.data.id, pw } });
      expect(a.body).toMatchObject({ status: 'fail', error: 'merchant_disabled' });
    });

    it('refuses plain HTTP from a non-loopback client (forwarded) unless a trusted proxy says https', async () => {
      const { subId, pw } = await createMerchants(owner.client, owner.appId);
      const res = await fetch(`${kit.url}/merchant/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
        body: JSON.stringify({ userId: subId, pw }),
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ status: 'fail', error: 'secure_connection_required' });
    });

    it.each([
      ['X-Real-IP', { 'x-real-ip': '203.0.113.9' }],
      ['Forwarded', { forwarded: 'for=203.0.113.9;proto=http' }],
      ['an empty X-Forwarded-For', { 'x-forwarded-for': '' }],
      ['Via', { via: '1.1 proxy.example' }],
    ])('refuses plain HTTP from loopback when the request carries %s: a proxy stands in front', async (_what, headers) => {
      const { subId, pw } = await createMerchants(owner.client, owner.appId);
      const answer = await rawPost(`${kit.url}/merchant/login`, JSON.stringify({ userId: subId, pw }), headers as Record<string, string>);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 'fail', error: 'secure_connection_required' });
    });

    it('refuses malformed bodies with 4xx', async () => {
      for (const body of [{}, { userId: 'SM1' }, { userId: 5, pw: 'x' }, { userId: 'not-an-id', pw: 'x' }]) {
        const a = await owner.client.call('POST', '/merchant/login', { unsigned: true, body });
        expect(a.httpStatus).toBe(400);
      }
      const res = await fetch(`${kit.url}/merchant/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"userId":' });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_json' });
    });
  });

  describe('payment parameters (4.7)', () => {
    it('stores parameters per channel and a sub-merchant inherits its parent field by field', async () => {
      const { parentId, subId } = await createMerchants(owner.client, owner.appId);
      await owner.client.setPaymentParams(parentId, 'SocialNative', {
        socialAppId: 'wxparent',
        socialMchId: '1900000001',
        notifyCallbackUrl: 'https://merchant.example/cb',
      });
      await owner.client.setPaymentParams(subId, 'SocialNative', { socialMchId: '1900000002' });
      await owner.client.setPaymentParams(parentId, 'SocialCardNetworkBizSmall', { cardNetworkBizMchId: 'C1', terminalId: 'T1' });
      const { merchants } = kit.runtime.services;
      expect(await merchants.effectivePaymentParams(subId, 'SocialNative')).toEqual({
        socialAppId: 'wxparent',
        socialMchId: '1900000002',
        notifyCallbackUrl: 'https://merchant.example/cb',
      });
      expect(await merchants.effectivePaymentParams(subId, 'SocialCardNetworkBizSmall')).toEqual({ cardNetworkBizMchId: 'C1', terminalId: 'T1' });
      // Read at payment time: a later change of the parent shows through at once.
      await owner.client.setPaymentParams(parentId, 'SocialNative', { socialAppId: 'wxparent2', notifyCallbackUrl: 'https://merchant.example/cb2' });
      expect(await merchants.effectivePaymentParams(subId, 'SocialNative')).toMatchObject({
        socialAppId: 'wxparent2',
        notifyCallbackUrl: 'https://merchant.example/cb2',
      });
    });

    it('is refused with 401 for a signer that is not the owner, and nothing changes', async () => {
      const { subId } = await createMerchants(owner.client, owner.appId);
      await owner.client.setPaymentParams(subId, 'SocialNative', { socialMchId: 'mine' });
      const a = await other.client.call('PUT', '/merchant/paymentParams', {
        body: { id: subId, paymentChannel: 'SocialNative', parameters: { socialMchId: 'theirs' } },
      });
      expect(a).toMatchObject({ httpStatus: 401, body: { version: 1, status: 'fail', error: 'not_owner' } });
      expect(await kit.runtime.services.merchants.effectivePaymentParams(subId, 'SocialNative')).toEqual({ socialMchId: 'mine' });
    });

    it.each([
      ['an unknown channel', { paymentChannel: 'Cash', parameters: { socialMchId: '1' } }, /paymentChannel/],
      ['a field of the other channel', { paymentChannel: 'SocialNative', parameters: { terminalId: 'T' } }, /terminalId|Unrecognized/],
      ['a callback URL that is not http(s)', { paymentChannel: 'SocialNative', parameters: { notifyCallbackUrl: 'ftp://x/y' } }, /notifyCallbackUrl/],
      [
        'a callback URL with credentials',
        { paymentChannel: 'SocialNative', parameters: { notifyCallbackUrl: 'https://user:pw@merchant.example/cb' } },
        /notifyCallbackUrl: must not carry a user name or password/,
      ],
      ['a relative callback URL', { paymentChannel: 'SocialNative', parameters: { notifyCallbackUrl: '/cb' } }, /notifyCallbackUrl/],
      ['profitSharing as a string', { paymentChannel: 'SocialNative', parameters: { profitSharing: 'yes' } }, /profitSharing/],
      ['no fields at all', { paymentChannel: 'SocialNative', parameters: {} }, /at least one/],
      ['a field of the wrong type', { paymentChannel: 'SocialNative', parameters: { socialMchId: 7 } }, /socialMchId/],
    ])('refuses %s', async (_what, partial, msg) => {
      const { subId } = await createMerchants(owner.client, owner.appId);
      const a = await owner.client.call('PUT', '/merchant/paymentParams', { body: { id: subId, ...partial } });
      expect(a.httpStatus).toBe(400);
      expect(a.body).toMatchObject({ status: 'fail', msg: expect.stringMatching(msg) });
    });

    it('refuses profitSharing: true for a merchant not contracted, and accepts it once contracted', async () => {
      const { parentId } = await createMerchants(owner.client, owner.appId);
      const body = { id: parentId, paymentChannel: 'SocialNative', parameters: { profitSharing: true } };
      expect(await owner.client.call('PUT', '/merchant/paymentParams', { body })).toMatchObject({
        httpStatus: 400,
        body: { error: 'profit_sharing_not_enabled' },
      });
      await kit.runtime.services.merchants.setContracted(parentId, true);
      expect(await owner.client.call('PUT', '/merchant/paymentParams', { body })).toMatchObject({ httpStatus: 200, body: { status: 'success', version: 1 } });
    });

    it('merges: fields sent are set, null clears, fields not sent stay (a partial update keeps notifyCallbackUrl)', async () => {
      const { parentId } = await createMerchants(owner.client, owner.appId);
      const { merchants } = kit.runtime.services;
      await owner.client.setPaymentParams(parentId, 'SocialNative', {
        socialAppId: 'wxa',
        socialMchId: '1900000001',
        notifyCallbackUrl: 'https://merchant.example/cb',
      });
      await owner.client.setPaymentParams(parentId, 'SocialNative', { socialMchId: '1900000009' });
      expect(await merchants.effectivePaymentParams(parentId, 'SocialNative')).toEqual({
        socialAppId: 'wxa',
        socialMchId: '1900000009',
        notifyCallbackUrl: 'https://merchant.example/cb',
      });
      await owner.client.setPaymentParams(parentId, 'SocialNative', { socialAppId: null });
      expect(await merchants.effectivePaymentParams(parentId, 'SocialNative')).toEqual({
        socialMchId: '1900000009',
        notifyCallbackUrl: 'https://merchant.example/cb',
      });
      // A cleared field of a sub-merchant falls back to its parent's again.
      const { subId } = await createMerchants(owner.client, owner.appId);
      await owner.client.setPaymentParams(subId, 'SocialNative', { notifyCallbackUrl: 'https://shop.example/cb' });
      await owner.client.setPaymentParams(subId, 'SocialNative', { notifyCallbackUrl: null });
      expect(await merchants.effectivePaymentParams(subId, 'SocialNative')).toEqual({});
      // A bad value changes nothing, not even the good fields sent with it.
      const bad = await owner.client.call('PUT', '/merchant/paymentParams', {
        body: { id: parentId, paymentChannel: 'SocialNative', parameters: { socialMchId: '1', notifyCallbackUrl: 'ftp://x' } },
      });
      expect(bad.httpStatus).toBe(400);
      expect(await merchants.effectivePaymentParams(parentId, 'SocialNative')).toEqual({
        socialMchId: '1900000009',
        notifyCallbackUrl: 'https://merchant.example/cb',
      });
    });

    it('merges concurrent partial updates without losing either', async () => {
      const { parentId } = await createMerchants(owner.client, owner.appId);
      const fields = Array.from({ length: 6 }, (_, i) => (i % 2 ? { socialAppId: `wx${i}` } : { socialMchId: `19000000${i}` }));
      await Promise.all([
        owner.client.setPaymentParams(parentId, 'SocialNative', { notifyCallbackUrl: 'https://merchant.example/cb' }),
        owner.client.setPaymentParams(parentId, 'SocialCardNetworkBizSmall', { terminalId: 'T9' }),
        ...fields.map((f) => owner.client.setPaymentParams(parentId, 'SocialNative', f)),
      ]);
      const params = await kit.runtime.services.merchants.effectivePaymentParams(parentId, 'SocialNative');
      expect(params).toMatchObject({
        notifyCallbackUrl: 'https://merchant.example/cb',
        socialAppId: expect.stringMatching(/^wx\d$/),
        socialMchId: expect.stringMatching(/^19000000\d$/),
      });
      expect(await kit.runtime.services.merchants.effectivePaymentParams(parentId, 'SocialCardNetworkBizSmall')).toEqual({ terminalId: 'T9' });
    });

    it('refuses an unknown merchant', async () => {
      const a = await owner.client.call('PUT', '/merchant/paymentParams', {
        body: { id: 'SMnothere', paymentChannel: 'SocialNative', parameters: { socialMchId: '1' } },
      });
      expect(a).toMatchObject({ httpStatus: 400, body: { error: 'unknown_merchant' } });
    });
  });
});

/** A POST with exactly these headers (fetch would drop an empty one). */
function rawPost(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
