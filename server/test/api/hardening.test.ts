/**
 * Smaller edges found by an audit, through real HTTP on every backend: the data folder's mode,
 * a list of trusted proxies, the replay guard and refused requests, the callback lease.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeQuery, signRequest } from '@kit/shared';
import { backends, describeEachBackend } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { newOrder, payByCode, payFixture, startReceiver } from '../support/payments';
import { waitFor } from '../support/wait';

describeEachBackend('hardening', (backend) => {
  let kit: TestKit;
  beforeAll(async () => {
    kit = await startTestKit(backend, { CALLBACK_TIMEOUT: '3s' });
  });
  afterAll(() => kit.close());

  it('a signed request refused for its shape (400) does not spend its signature; an accepted one does', async () => {
    const { appId, appSecret, client } = await kit.newApp();
    const { subId } = await createMerchants(client, appId);
    const send = (body: string) => {
      const query = encodeQuery(signRequest({ method: 'POST', path: '/submerchant-pay/', body }, { appId, appSecret }));
      return () => fetch(`${kit.url}/submerchant-pay/?${query}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    };
    const spent = async () => (await kit.runtime.db.db.selectFrom('replay_guard').select('sig').where('app_id', '=', appId).execute()).length;
    const before = await spent();
    const bad = send(JSON.stringify({ subMerchantId: subId, totalAmount: 'twelve' }));
    const first = await bad();
    expect(first.status).toBe(400);
    expect((await first.json()).error).toBe('invalid_amount');
    expect(await spent()).toBe(before);
    // The same bytes again: refused for the same reason, not as a replay.
    expect((await (await bad()).json()).error).toBe('invalid_amount');
    const good = send(JSON.stringify({ subMerchantId: subId, totalAmount: '1.00' }));
    expect((await good()).status).toBe(200);
    expect(await spent()).toBe(before + 1);
    expect((await (await good()).json()).error).toBe('signature_replayed');
  });

  it("holds a callback job's lease no longer than one attempt (CALLBACK_TIMEOUT)", async () => {
    const receiver = await startReceiver(() => ({ hang: true }));
    try {
      const f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      const prepayId = await newOrder(f);
      await payByCode(kit, f, prepayId);
      await waitFor(() => receiver.received[0], 'the first attempt');
      const job = await kit.runtime.db.db
        .selectFrom('jobs')
        .selectAll()
        .where('queue', '=', 'callback')
        .where('key', 'like', `${prepayId}%`)
        .executeTakeFirstOrThrow();
      // Claimed at most a moment before the receiver saw the attempt; the lease ends within 3 s of the claim.
      expect(job.next_at - receiver.received[0].at).toBeLessThanOrEqual(3_000);
      // The attempt still ends (timed out) and is recorded inside its lease.
      const [row] = await waitFor(async () => {
        const h = await kit.runtime.services.callbacks.history(prepayId);
        return h[0]?.attemptLog.length ? h : undefined;
      }, 'the recorded attempt');
      expect(row.attemptLog[0].error).toMatch(/no answer within/);
    } finally {
      await receiver.close();
    }
  });

  it('creates DATA_DIR owner-only (0700), whichever part creates it first', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-datadir-'));
    const dataDir = path.join(parent, 'nested', 'data');
    const other = await startTestKit(backend, { DATA_DIR: dataDir });
    try {
      expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    } finally {
      await other.close();
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe('TRUST_PROXY as a list of proxies', () => {
  let kit: TestKit;
  beforeAll(async () => {
    // The listed proxy is not the loopback this test connects from.
    kit = await startTestKit(backends()[0], { TRUST_PROXY: '10.0.0.5, 192.168.0.0/16', ALLOW_INSECURE_LOGIN_ON_LOOPBACK: '0', LOG_LEVEL: 'silent' });
  });
  afterAll(() => kit.close());

  it('ignores X-Forwarded-Proto from a client that is not a listed proxy', async () => {
    const app = await kit.newApp();
    const { parentId, pw } = await createMerchants(app.client, app.appId);
    const res = await fetch(`${kit.url}/merchant/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ userId: parentId, pw }),
    });
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe('secure_connection_required');
  });

  it('refuses a list entry that is not an address', async () => {
    const other = startTestKit(backends()[0], { TRUST_PROXY: 'proxy.example.com' });
    await expect(other).rejects.toThrow(/TRUST_PROXY: must be on, off or a list/);
  });
});
