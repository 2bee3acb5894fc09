/** Donations 4.9–4.11 through real HTTP on each backend: validation, encryption, idempotence, on-chain ids. */
import { decryptDonationContent, decryptDonation, KitApiError, type DonationIdsResponse, type DonationProject } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { runKit } from '../../src/kit/main';
import { i2c } from './chain-helpers';
import { waitFor } from '../support/wait';

type App = Awaited<ReturnType<TestKit['newApp']>>;

describeEachBackend('donations', (backend) => {
  let kit: TestKit;
  let charity: App;
  let env: NodeJS.ProcessEnv;

  // Raw answers, for the refusals (any body may be sent); the success path uses the typed client.
  const project = (as: App, body: unknown) => as.client.call<any>('POST', '/donation/project', { body });
  const donate = (as: App, body: unknown) => as.client.call<any>('POST', '/donation/donate', { body });
  const onChainIds = (as: App, body: unknown) => as.client.call<any>('POST', '/donation/fetchOnChainIds', { body });
  /** The typed 4.11 once it stops answering `pending`: the sealer runs what is queued (`kit.settle`), then the answer is read. */
  const settledIds = async (as: App, type: 'project' | 'donate', originalIds: string[]): Promise<DonationIdsResponse> => {
    await kit.settle();
    return waitFor(
      async () => {
        const res = await as.client.donationOnChainIds(type, originalIds);
        return res.status === 'success' ? res : null;
      },
      `4.11 settled for ${originalIds.join(', ')}`,
    );
  };

  const fullProject: DonationProject = {
    id: 'proj-1',
    createTime: 1_700_000_000,
    title: 'Clean water',
    desc: 'Wells for three villages',
    founder: 'Water Org',
    category: ['water', 'health'],
    keyWords: ['wells'],
    targetAmount: ['1000.00 RMB', '50000.000 RMB'],
  };

  beforeAll(async () => {
    env = backend.env();
    kit = await startTestKit(backend, env);
    charity = await kit.newApp();
  });
  afterAll(() => kit.close());

  test('4.9 a project is accepted as pending and confirmed later', async () => {
    expect(await charity.client.createDonationProject(fullProject)).toEqual({ status: 'pending', version: '1' });
    const ids = await settledIds(charity, 'project', ['proj-1']);
    expect(ids).toEqual({ status: 'success', version: '1', ids: { 'proj-1': expect.stringMatching(/^[0-9a-f]{64}$/) } });
    // Minimal project: only the id.
    expect(await charity.client.createDonationProject({ id: 'proj-min' })).toEqual({ status: 'pending', version: '1' });
  });

  test('4.9 field validation', async () => {
    const bad: Array<[string, unknown]> = [
      ['missing id', { title: 'x' }],
      ['createTime as a string', { id: 'p', createTime: '1700000000' }],
      ['one decimal', { id: 'p', targetAmount: ['1000.0 RMB', '2000.00 RMB'] }],
      ['no unit', { id: 'p', targetAmount: ['1000.00', '2000.00 RMB'] }],
      ['wrong unit', { id: 'p', targetAmount: ['1000.00 USD', '2000.00 RMB'] }],
      ['three entries', { id: 'p', targetAmount: ['1.00 RMB', '2.00 RMB', '3.00 RMB'] }],
      ['min above max', { id: 'p', targetAmount: ['3000.00 RMB', '2000.00 RMB'] }],
      ['numbers', { id: 'p', targetAmount: [1000, 2000] }],
      ['category not a list', { id: 'p', category: 'water' }],
      ['unknown field', { id: 'p', budget: 5 }],
    ];
    for (const [why, body] of bad) {
      const res = await project(charity, body);
      expect([why, res.httpStatus]).toEqual([why, 400]);
      expect(res.body).toEqual({ status: 'fail', version: '1', error: 'invalid_request', code: 'E0001', msg: expect.any(String), traceId: expect.any(String) });
    }
    expect(await charity.client.donationOnChainIds('project', ['p'])).toEqual({ status: 'success', version: '1', ids: {} });
  });

  test('4.10 a donation needs a project known to this app; amounts carry at least 2 decimals, kept as sent', async () => {
    const ok = await charity.client.donate({
      id: 'don-1',
      donatorId: 'd-7',
      donatorName: 'Ann',
      projectId_biz: 'proj-1',
      amount: '12.50 RMB',
      createTime: 1_700_000_100,
    });
    expect(ok).toEqual({ status: 'pending', version: '1' });

    const noProject = await donate(charity, { id: 'don-2', projectId_biz: 'no-such-project', amount: '1.00 RMB' });
    expect(noProject.httpStatus).toBe(400);
    expect(noProject.body).toMatchObject({
      status: 'fail',
      version: '1',
      error: 'project_not_found',
      code: 'E0045',
      msg: expect.stringContaining('no-such-project'),
    });
    // Another app's project does not count; the typed client reports the refusal as KitApiError.
    const other = await kit.newApp();
    const refused = await other.client.donate({ id: 'don-3', projectId_biz: 'proj-1' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(KitApiError);
    expect(refused).toMatchObject({ httpStatus: 400, error: 'project_not_found' });

    for (const amount of ['12.5 RMB', '12 RMB', '12.50', '0.00 RMB', '0.000 RMB', '-1.00 RMB', '1e2 RMB', '12.50 rmb', 12.5]) {
      const res = await donate(charity, { id: 'don-4', projectId_biz: 'proj-1', amount });
      expect([amount, res.body.error]).toEqual([amount, 'invalid_request']);
    }
    // Section 8: "at least 2 decimals": more are accepted, and kept exactly as sent.
    expect((await charity.client.donate({ id: 'don-6', projectId_biz: 'proj-1', amount: '12.505 RMB' })).status).toBe('pending');
    expect((await donate(charity, { id: 'don-5', amount: '1.00 RMB' })).body).toMatchObject({ error: 'invalid_request' });

    const ids = await settledIds(charity, 'donate', ['don-1', 'don-2', 'don-4', 'don-6']);
    expect(ids).toEqual({
      status: 'success',
      version: '1',
      ids: { 'don-1': expect.stringMatching(/^[0-9a-f]{64}$/), 'don-6': expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const stored = await kit.runtime.db.db.selectFrom('chain_items').select('content').where('chain_id', '=', ids.ids['don-6']).executeTakeFirstOrThrow();
    expect(decryptDonationContent(charity.appSecret, JSON.parse(stored.content).sealed)).toMatchObject({ amount: '12.505 RMB' });
  });

  test('a donation may name the project by its on-chain id, which must match', async () => {
    const projectChainId = (await settledIds(charity, 'project', ['proj-1'])).ids['proj-1'];
    expect((await charity.client.donate({ id: 'don-bc', projectId_biz: 'proj-1', projectId_bc: projectChainId })).status).toBe('pending');
    const wrong = await donate(charity, { id: 'don-bc2', projectId_biz: 'proj-1', projectId_bc: 'f'.repeat(64) });
    expect(wrong.body).toMatchObject({ status: 'fail', error: 'invalid_action_args' });
  });

  test('a donation may follow its project at once, before the project is confirmed', async () => {
    expect((await charity.client.createDonationProject({ id: 'proj-fast' })).status).toBe('pending');
    expect((await charity.client.donate({ id: 'don-fast', projectId_biz: 'proj-fast', amount: '3.00 RMB' })).status).toBe('pending');
    expect((await settledIds(charity, 'donate', ['don-fast'])).ids['don-fast']).toMatch(/^[0-9a-f]{64}$/);
  });

  test('contents are encrypted: only the AppSecret decrypts them', async () => {
    const { db } = kit.runtime.db;
    const row = await db.selectFrom('chain_items').selectAll().where('app_id', '=', charity.appId).where('local_id', '=', 'proj-1').executeTakeFirstOrThrow();
    expect(row.content).not.toContain('Clean water');
    expect(row.content).not.toContain('Water Org');
    const sealed = JSON.parse(row.content).sealed as string;
    expect(decryptDonationContent(charity.appSecret, sealed)).toEqual(fullProject);
    const other = await kit.newApp();
    expect(() => decryptDonation(other.appSecret, sealed)).toThrow(/wrong AppSecret/);
  });

  test('kit donation decrypt works from a ciphertext or an on-chain id', async () => {
    const id = (await settledIds(charity, 'project', ['proj-1'])).ids['proj-1'];
    const lines: string[] = [];
    expect(await runKit(['donation', 'decrypt', '--secret', charity.appSecret, id], env, (l) => lines.push(l))).toBe(0);
    expect(JSON.parse(lines[0])).toMatchObject({ appId: charity.appId, type: 'donation.project', id: 'proj-1', content: fullProject });

    const row = await kit.runtime.db.db.selectFrom('chain_items').select('content').where('chain_id', '=', id).executeTakeFirstOrThrow();
    lines.length = 0;
    expect(await runKit(['donation', 'decrypt', '--secret', charity.appSecret, JSON.parse(row.content).sealed], env, (l) => lines.push(l))).toBe(0);
    expect(JSON.parse(lines[0])).toEqual(fullProject);

    const other = await kit.newApp();
    const err = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await runKit(['donation', 'decrypt', '--secret', other.appSecret, id], env, () => undefined)).toBe(1);
    } finally {
      err.mockRestore();
    }
  });

  test('resubmitting the same id is idempotent; other content under the same id is refused', async () => {
    const before = (await settledIds(charity, 'project', ['proj-1'])).ids['proj-1'];
    expect(await charity.client.createDonationProject(fullProject)).toEqual({ status: 'pending', version: '1' });
    expect((await settledIds(charity, 'project', ['proj-1'])).ids['proj-1']).toBe(before);
    const changed = await project(charity, { ...fullProject, title: 'Changed' });
    expect(changed.httpStatus).toBe(409);
    expect(changed.body).toMatchObject({ status: 'fail', version: '1', error: 'id_conflict', code: 'E0049' });
  });

  test('4.11 refuses more than 20 ids and unknown types', async () => {
    const many = Array.from({ length: 21 }, (_, i) => `p-${i}`);
    const tooMany = await onChainIds(charity, { type: 'project', originalIds: many });
    expect(tooMany.httpStatus).toBe(400);
    expect(tooMany.body).toMatchObject({ status: 'fail', version: '1', error: 'too_many_items', code: 'E0040' });
    expect((await charity.client.donationOnChainIds('project', many.slice(0, 20))).status).toBe('success');
    expect((await onChainIds(charity, { type: 'projects', originalIds: ['x'] })).body).toMatchObject({ error: 'invalid_request' });
  });

  test('donations are chain items: 4.15 finds them under their types', async () => {
    const res = await charity.client.lookup([i2c('donation.project', 'proj-1'), i2c('donation.donate', 'don-1')]);
    expect(res.items.map((r) => r.id)).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/), expect.stringMatching(/^[0-9a-f]{64}$/)]);
    // And 4.14 uploads of donation types are validated and encrypted the same way.
    const bad = await charity.client.call<any>('POST', '/common-chain-upload/', {
      body: { items: [{ type: 'donation.donate', args: { id: 'x', projectId_biz: 'nope' } }] },
    });
    expect(bad.body).toMatchObject({ status: 'fail', error: 'project_not_found' });
  });
});

describeEachBackend('donations before sealing', (backend) => {
  let kit: TestKit;
  beforeAll(async () => {
    kit = await startTestKit(backend, { CHAIN_SEALER: 'off' });
  });
  afterAll(() => kit.close());

  test('4.11 is pending while an id is queued, then success once sealed', async () => {
    const app = await kit.newApp();
    await app.client.createDonationProject({ id: 'q-1' });
    // `pending` is an answer of 4.11, not an error: the typed method returns it.
    expect(await app.client.donationOnChainIds('project', ['q-1', 'unknown'])).toEqual({ status: 'pending', version: '1' });
    await kit.runtime.services.chain.sealer.sealOnce();
    const after = await app.client.donationOnChainIds('project', ['q-1', 'unknown']);
    expect(after).toEqual({ status: 'success', version: '1', ids: { 'q-1': expect.stringMatching(/^[0-9a-f]{64}$/) } });
  });
});
