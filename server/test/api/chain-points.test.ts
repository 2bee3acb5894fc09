/** Trusted points (4.12, 4.13) and the points actions of the ledger, through real HTTP on each backend. */
import { randomBytes } from 'node:crypto';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { i2c, settle, upload } from './chain-helpers';

type App = Awaited<ReturnType<TestKit['newApp']>>;
const uuid = () => randomBytes(16).toString('hex');

describeEachBackend('trusted points', (backend) => {
  let kit: TestKit;
  let issuer: App; // issues the point type PTS
  let wallet: App; // the app the users live in
  let shop: App; // redeems deduction codes
  let stranger: App;
  let n = 0;
  const nextId = (p: string) => `${p}-${++n}`;

  // Raw answers, for the refusals; the success path goes through the typed client below.
  const balance = (as: App, userId: string, over: Record<string, string> = {}) =>
    as.client.call<any>('GET', '/fungible-token/balance', {
      query: { tokenId: 'PTS', tokenAppId: issuer.appId, userAppId: wallet.appId, userId, ...over },
    });
  const account = (userId: string) => ({ tokenId: 'PTS', tokenAppId: issuer.appId, userAppId: wallet.appId, userId });
  const balanceOf = async (userId: string) => (await issuer.client.pointsBalance(account(userId))).data.balance;
  /** A deduction code through the typed 4.13 (asked by the user's app); returns the QR content. */
  const linkFor = async (userId: string, maxAmount: number, id = uuid()) =>
    (await wallet.client.deductionCode({ ...account(userId), maxAmount, uuid: id })).data.chainLinks[0];
  const code = (as: App, userId: string, maxAmount: string | number, id = uuid(), over: Record<string, string> = {}) =>
    as.client.call<any>('GET', '/fungible-token/chainPay', {
      query: { tokenId: 'PTS', tokenAppId: issuer.appId, userAppId: wallet.appId, userId, maxAmount, uuid: id, ...over },
    });
  /** Uploads items and waits until they settle; returns the lookup answers. */
  const run = async (as: App, items: Array<{ type: string; args: { id: string } & Record<string, unknown> }>) => {
    expect(await as.client.upload(items)).toEqual({ version: '1', status: 'pending' });
    return settle(
      as.client,
      items.map((i) => i2c(i.type, i.args.id)),
    );
  };
  const issue = (userId: string, amount: string) =>
    run(issuer, [{ type: 'points.issue', args: { id: nextId('issue'), tokenId: 'PTS', userAppId: wallet.appId, userId, amount } }]);

  beforeAll(async () => {
    kit = await startTestKit(backend);
    [issuer, wallet, shop, stranger] = await Promise.all([kit.newApp(), kit.newApp(), kit.newApp(), kit.newApp()]);
    // A point type and its first issue in one call: the issue refers to the create before it.
    const [created, issued] = await run(issuer, [
      { type: 'points.create', args: { id: 'create-pts', tokenId: 'PTS', name: 'Shop points' } },
      { type: 'points.issue', args: { id: 'first-issue', tokenId: 'PTS', userAppId: wallet.appId, userId: 'alice', amount: '100.5' } },
    ]);
    expect(created.id).toMatch(/^[0-9a-f]{64}$/);
    expect(issued.id).toMatch(/^[0-9a-f]{64}$/);
  });
  afterAll(() => kit.close());

  describe('4.12 balance', () => {
    test('shown with 5 decimals to the issuing app and to the user app', async () => {
      for (const as of [issuer, wallet]) {
        expect(await as.client.pointsBalance(account('alice'))).toEqual({
          version: '1',
          status: 'success',
          data: { balance: '100.50000', tokenId: 'PTS', tokenAppId: issuer.appId, userAppId: wallet.appId, userId: 'alice' },
        });
      }
      // A user who never had points has a zero balance; user ids need no registration.
      expect((await wallet.client.pointsBalance(account('alice bob/中'))).data.balance).toBe('0.00000');
    });

    test('refused to other apps, for unknown point types and without parameters', async () => {
      const other = await balance(stranger, 'alice');
      expect(other.httpStatus).toBe(401);
      expect(other.body).toMatchObject({ version: '1', status: 'fail', error: 'not_owner', code: 'E0016' });
      const unknown = await balance(issuer, 'alice', { tokenId: 'NOPE' });
      expect(unknown.body).toMatchObject({ status: 'fail', error: 'point_type_not_found', code: 'E0046' });
      const missing = await issuer.client.call<any>('GET', '/fungible-token/balance', { query: { tokenId: 'PTS' } });
      expect(missing.httpStatus).toBe(400);
      expect(missing.body).toMatchObject({ version: '1', status: 'fail', error: 'invalid_request' });
    });
  });

  describe('points actions', () => {
    test('issue credits with up to 5 decimals; finer amounts are refused', async () => {
      const before = await balanceOf('carol');
      await issue('carol', '0.00001');
      expect(await balanceOf('carol')).toBe((Number(before) + 0.00001).toFixed(5));
      for (const amount of ['0.000001', '-1', '0', '1e3', 12]) {
        const res = await upload(issuer.client, [
          { type: 'points.issue', args: { id: nextId('bad'), tokenId: 'PTS', userAppId: wallet.appId, userId: 'carol', amount } },
        ]);
        expect(res.body).toMatchObject({ status: 'fail', error: 'invalid_action_args', code: 'E0043' });
      }
    });

    test('only the issuing app issues, and only existing point types', async () => {
      const foreign = await upload(stranger.client, [
        { type: 'points.issue', args: { id: 'x', tokenId: 'PTS', tokenAppId: issuer.appId, userAppId: wallet.appId, userId: 'alice', amount: '5' } },
      ]);
      expect(foreign.httpStatus).toBe(401);
      expect(foreign.body).toMatchObject({ error: 'not_token_issuer', code: 'E0047' });
      // Without tokenAppId the stranger addresses its own (nonexistent) PTS.
      const own = await upload(stranger.client, [
        { type: 'points.issue', args: { id: 'y', tokenId: 'PTS', userAppId: wallet.appId, userId: 'alice', amount: '5' } },
      ]);
      expect(own.body).toMatchObject({ error: 'point_type_not_found', code: 'E0046' });
    });

    test('a second create of the same point type fails at sealing', async () => {
      const [dup] = await run(issuer, [{ type: 'points.create', args: { id: 'create-pts-again', tokenId: 'PTS', name: 'Again' } }]);
      expect(dup).toEqual({});
    });

    test('transfer moves points; only the sender app may send; overdraw fails and can be resubmitted', async () => {
      await issue('dave', '10');
      const t = {
        id: nextId('t'),
        tokenId: 'PTS',
        tokenAppId: issuer.appId,
        from: { userAppId: wallet.appId, userId: 'dave' },
        to: { userAppId: wallet.appId, userId: 'erin' },
        amount: '3.25',
      };
      const [ok] = await run(wallet, [{ type: 'points.transfer', args: t }]);
      expect(ok.id).toMatch(/^[0-9a-f]{64}$/);
      expect(await balanceOf('dave')).toBe('6.75000');
      expect(await balanceOf('erin')).toBe('3.25000');

      const notSender = await upload(issuer.client, [{ type: 'points.transfer', args: { ...t, id: nextId('t') } }]);
      expect(notSender.httpStatus).toBe(401);
      expect(notSender.body).toMatchObject({ error: 'not_user_app', code: 'E0048' });

      const over = { ...t, id: nextId('t'), amount: '7' };
      const [failed] = await run(wallet, [{ type: 'points.transfer', args: over }]);
      expect(failed).toEqual({});
      expect(await balanceOf('dave')).toBe('6.75000');
      // After a top-up the same item, resubmitted with the same id, goes through.
      await issue('dave', '1');
      const [again] = await run(wallet, [{ type: 'points.transfer', args: over }]);
      expect(again.id).toMatch(/^[0-9a-f]{64}$/);
      expect(await balanceOf('dave')).toBe('0.75000');
      expect(await balanceOf('erin')).toBe('10.25000');
    });

    test('items apply in queue order: a transfer queued right after the issue that funds it succeeds', async () => {
      const from = { userAppId: wallet.appId, userId: 'frank' };
      const to = { userAppId: wallet.appId, userId: 'gina' };
      await upload(issuer.client, [
        { type: 'points.issue', args: { id: nextId('issue'), tokenId: 'PTS', userAppId: wallet.appId, userId: 'frank', amount: '2' } },
      ]);
      const [r] = await run(wallet, [{ type: 'points.transfer', args: { id: nextId('t'), tokenId: 'PTS', tokenAppId: issuer.appId, from, to, amount: '2' } }]);
      expect(r.id).toMatch(/^[0-9a-f]{64}$/);
      expect(await balanceOf('gina')).toBe('2.00000');
    });
  });

  describe('4.13 deduction code and chainPay', () => {
    test('the user app gets exactly one chainLink; other apps and bad parameters are refused', async () => {
      const id = uuid();
      const before = Date.now();
      const res = await wallet.client.deductionCode({ ...account('alice'), maxAmount: 12.5, uuid: id });
      expect(res).toMatchObject({ version: '1', status: 'success', data: { uuid: id, maxAmount: '12.50000' } });
      expect(res.data.chainLinks).toHaveLength(1);
      expect(res.data.chainLinks[0].length).toBeLessThan(400);
      expect(res.data.expiresAt).toBeGreaterThanOrEqual(before + 20_000);

      const byIssuer = await code(issuer, 'alice', 5);
      expect(byIssuer.httpStatus).toBe(401);
      expect(byIssuer.body).toMatchObject({ status: 'fail', error: 'not_user_app', code: 'E0048' });
      for (const bad of ['short', `${uuid().slice(0, 31)}-`, `${uuid()}0`]) {
        const r = await code(wallet, 'alice', 5, bad);
        expect(r.httpStatus).toBe(400);
        expect(r.body).toMatchObject({ status: 'fail', error: 'invalid_request' });
      }
      for (const bad of ['abc', '0', '-3', '1e3', '0.000001']) {
        expect((await code(wallet, 'alice', bad)).body).toMatchObject({ status: 'fail', error: 'invalid_amount', code: 'E0005' });
      }
      expect((await code(wallet, 'alice', 5, uuid(), { tokenId: 'NOPE' })).body).toMatchObject({ error: 'point_type_not_found' });
    });

    test('chainPay deducts within maxAmount and spends the uuid once', async () => {
      await issue('hank', '50');
      const id = uuid();
      const link = await linkFor('hank', 20, id);
      const [paid] = await run(shop, [{ type: 'chainPay', args: { id: nextId('pay'), code: link, amount: '19.99999' } }]);
      expect(paid.id).toMatch(/^[0-9a-f]{64}$/);
      expect(await balanceOf('hank')).toBe('30.00001');
      // The same uuid cannot pay twice, with the same code or a fresh one.
      const [twice] = await run(shop, [{ type: 'chainPay', args: { id: nextId('pay'), code: link, amount: '1' } }]);
      expect(twice).toEqual({});
      const refreshed = await code(wallet, 'hank', 20, id);
      expect(refreshed.httpStatus).toBe(409);
      expect(refreshed.body).toMatchObject({ status: 'fail', error: 'uuid_spent', code: 'E0050' });
      expect(await balanceOf('hank')).toBe('30.00001');
    });

    test('a deduction above maxAmount, beyond the balance, or with an expired code fails', async () => {
      await issue('ivan', '10');
      const above = await linkFor('ivan', 5);
      const broke = await linkFor('ivan', 100);
      // A code issued 21 s ago (minted through the service with an earlier clock).
      const q = { tokenId: 'PTS', tokenAppId: issuer.appId, userAppId: wallet.appId, userId: 'ivan', maxAmount: '5', uuid: uuid() };
      const expired = (await kit.runtime.services.chain.points.deductionCode(wallet.appId, q, Date.now() - 21_000)).data.chainLinks[0];
      const results = await run(shop, [
        { type: 'chainPay', args: { id: nextId('pay'), code: above, amount: '5.00001' } },
        { type: 'chainPay', args: { id: nextId('pay'), code: broke, amount: '10.00001' } },
        { type: 'chainPay', args: { id: nextId('pay'), code: expired, amount: '1' } },
      ]);
      expect(results).toEqual([{}, {}, {}]);
      expect(await balanceOf('ivan')).toBe('10.00000');
      // Failed uuids were not spent: the same codes still pay a valid amount.
      const [ok] = await run(shop, [{ type: 'chainPay', args: { id: nextId('pay'), code: above, amount: '5' } }]);
      expect(ok.id).toMatch(/^[0-9a-f]{64}$/);
      expect(await balanceOf('ivan')).toBe('5.00000');
    });

    test('a forged or altered code is refused at upload', async () => {
      const link = await linkFor('alice', 5);
      const [head, payload, mac] = [link.slice(0, 4), link.slice(4, link.lastIndexOf('.')), link.slice(link.lastIndexOf('.') + 1)];
      const raised = JSON.parse(Buffer.from(payload, 'base64url').toString());
      raised[4] = raised[4] * 100;
      const altered = `${head}${Buffer.from(JSON.stringify(raised)).toString('base64url')}.${mac}`;
      for (const bad of [altered, 'not a code', `${link}x`]) {
        const res = await upload(shop.client, [{ type: 'chainPay', args: { id: nextId('pay'), code: bad, amount: '1' } }]);
        expect(res.body).toMatchObject({ status: 'fail', error: 'invalid_action_args', code: 'E0043' });
      }
    });

    test('concurrent chainPay uploads with one code: exactly one wins', async () => {
      await issue('judy', '100');
      const link = await linkFor('judy', 10);
      const ids = Array.from({ length: 8 }, () => nextId('race'));
      const answers = await Promise.all(ids.map((id) => shop.client.upload([{ type: 'chainPay', args: { id, code: link, amount: '10' } }])));
      for (const a of answers) expect(a.status).toBe('pending');
      const results = await settle(
        shop.client,
        ids.map((id) => i2c('chainPay', id)),
      );
      expect(results.filter((r) => r.id).length).toBe(1);
      expect(results.filter((r) => Object.keys(r).length === 0).length).toBe(ids.length - 1);
      expect(await balanceOf('judy')).toBe('90.00000');
    });

    test("chainPay is confirmed within one CHAIN_SEAL_INTERVAL (200 ms in tests) of its upload, on the service's clock", async () => {
      await issue('kate', '5');
      const link = await linkFor('kate', 5);
      const id = nextId('pay');
      const look = () => settle(shop.client, [i2c('chainPay', id)], 0);
      kit.clock.freeze();
      try {
        expect(await shop.client.upload([{ type: 'chainPay', args: { id, code: link, amount: '1' } }])).toEqual({ version: '1', status: 'pending' });
        // The service's clock stands still but for this interval: the item is sealed within it, however slow the machine.
        await kit.advance('200ms');
        expect((await look())[0].id).toMatch(/^[0-9a-f]{64}$/);
      } finally {
        kit.clock.resume();
      }
    });
  });

  describe('afterwards', () => {
    test('the ledger and the points state verify', async () => {
      expect(await kit.runtime.services.chain.verify()).toMatchObject({ ok: true });
    });
  });
});
