/** 4.14 / 4.15 and the inclusion proof, through real HTTP on each backend. */
import { createHash } from 'node:crypto';
import { verifyChainProof, type KitClient, type ProofResponse } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { runKit } from '../../src/kit/main';
import { runKitCommand } from '../support/process';
import { i2c, independentlyVerify, lookup, settle, upload } from './chain-helpers';

/** The typed proof of a confirmed item (fails the test on `pending`). */
async function confirmedProof(client: KitClient, onChainId: string): Promise<ProofResponse> {
  const answer = await client.proof(onChainId);
  if (answer.status !== 'success') throw new Error(`the proof of ${onChainId} is still pending`);
  return answer;
}

describeEachBackend('chain upload and lookup', (backend) => {
  let kit: TestKit;
  let app: Awaited<ReturnType<TestKit['newApp']>>;

  beforeAll(async () => {
    kit = await startTestKit(backend);
    app = await kit.newApp();
  });
  afterAll(() => kit.close());

  test('accepted items are pending, then confirmed with an on-chain id, transaction and block number', async () => {
    const items = [
      { type: 'record', args: { id: 'r-1', note: 'first', n: 1 } },
      { type: 'record', args: { id: 'r-2', note: 'second', nested: { b: 2, a: [1, 'x'] } } },
    ];
    expect(await app.client.upload(items)).toEqual({ version: '1', status: 'pending' });

    const [first, second] = await settle(app.client, [i2c('record', 'r-1'), i2c('record', 'r-2')]);
    for (const r of [first, second]) {
      expect(r.id).toMatch(/^[0-9a-f]{64}$/);
      expect(r.chainTrxId).toMatch(/^[0-9a-f]{64}$/);
      expect(r.chainBlockNum).toMatch(/^[1-9][0-9]*$/);
    }
    // The on-chain id is the hash of the canonical content: keys sorted, no whitespace.
    const canonical = '{"args":{"id":"r-1","n":1,"note":"first"},"type":"record"}';
    expect(first.id).toBe(createHash('sha256').update(canonical).digest('hex'));
    expect(first.id).not.toBe(second.id);
  });

  test('c2i finds the local id from the on-chain id', async () => {
    await app.client.upload([{ type: 'record', args: { id: 'c2i-1', v: true } }]);
    const [r] = await settle(app.client, [i2c('record', 'c2i-1')]);
    const res = await app.client.lookup([
      { type: 'record', id: r.id, queryType: 'c2i' },
      { type: 'record', id: 'f'.repeat(64), queryType: 'c2i' },
      { type: 'record', id: 'not-a-hash', queryType: 'c2i' },
    ]);
    expect(res.items).toEqual([{ id: 'c2i-1', chainTrxId: r.chainTrxId, chainBlockNum: r.chainBlockNum }, {}, {}]);
  });

  test('identical data gives the identical on-chain id; a resubmission is idempotent', async () => {
    const item = { type: 'record', args: { id: 'same', payload: 'x' } };
    // Identical calls back to back: the client never reuses a signature, so neither is taken for a replay.
    expect((await app.client.upload([item])).status).toBe('pending');
    expect((await app.client.upload([item])).status).toBe('pending');
    const [r] = await settle(app.client, [i2c('record', 'same')]);
    expect((await app.client.upload([{ type: 'record', args: { payload: 'x', id: 'same' } }])).status).toBe('pending');
    const [again] = await settle(app.client, [i2c('record', 'same')]);
    expect(again).toEqual(r);
    // Another app uploading identical data gets the identical on-chain id (but its own transaction).
    const other = await kit.newApp();
    await upload(other.client, [item]);
    const [theirs] = await settle(other.client, [i2c('record', 'same')]);
    expect(theirs.id).toBe(r.id);
    expect(theirs.chainTrxId).not.toBe(r.chainTrxId);
  });

  test('the same id with other content is refused and changes nothing', async () => {
    await upload(app.client, [{ type: 'record', args: { id: 'fixed', v: 1 } }]);
    const res = await upload(app.client, [
      { type: 'record', args: { id: 'fresh-in-refused-call' } },
      { type: 'record', args: { id: 'fixed', v: 2 } },
    ]);
    expect(res.httpStatus).toBe(409);
    expect(res.body).toMatchObject({ version: '1', status: 'fail', error: 'id_conflict', code: 'E0049' });
    expect(res.body.traceId).toEqual(expect.any(String));
    const items = await settle(app.client, [i2c('record', 'fixed'), i2c('record', 'fresh-in-refused-call')]);
    expect(items[0].id).toMatch(/^[0-9a-f]{64}$/);
    expect(items[1]).toEqual({});
  });

  test('concurrent calls are written together, yet one call refused leaves the others intact', async () => {
    await upload(app.client, [{ type: 'record', args: { id: 'taken', v: 1 } }]);
    const calls = Array.from({ length: 12 }, (_, c) =>
      c === 5
        ? [
            { type: 'record', args: { id: 'together-5-0' } },
            { type: 'record', args: { id: 'taken', v: 2 } },
          ]
        : Array.from({ length: 10 }, (_, i) => ({ type: 'record', args: { id: `together-${c}-${i}` } })),
    );
    const answers = await Promise.all(calls.map((items) => upload(app.client, items)));
    answers.forEach((a, c) => expect([c, a.body.status]).toEqual([c, c === 5 ? 'fail' : 'pending']));
    expect(answers[5].body.error).toBe('id_conflict');
    const ids = calls.flatMap((items, c) => (c === 5 ? [] : items.map((it) => it.args.id)));
    const results = await settle(app.client, [...ids.map((id) => i2c('record', id)), i2c('record', 'together-5-0')]);
    expect(results.slice(0, -1).every((r) => /^[0-9a-f]{64}$/.test(r.chainTrxId))).toBe(true);
    expect(results[results.length - 1]).toEqual({});
  });

  test('items belong to the uploading app: another app cannot look them up', async () => {
    await upload(app.client, [{ type: 'record', args: { id: 'mine' } }]);
    const [r] = await settle(app.client, [i2c('record', 'mine')]);
    const stranger = await kit.newApp();
    const res = await lookup(stranger.client, [i2c('record', 'mine'), { type: 'record', id: r.id, queryType: 'c2i' }]);
    expect(res.body.items).toEqual([{}, {}]);
    const proof = await stranger.client.call<any>('GET', `/common-chain-upload/proof/${r.id}`);
    expect(proof.httpStatus).toBe(404);
  });

  describe('limits and refusals (the whole call is refused, nothing is stored)', () => {
    const expectFail = (res: { httpStatus: number; body: any }, error: string, code: string) => {
      expect(res.httpStatus).toBeGreaterThanOrEqual(400);
      expect(res.httpStatus).toBeLessThan(500);
      expect(res.body).toEqual({ version: '1', status: 'fail', error, code, msg: expect.any(String), traceId: expect.any(String) });
    };

    test('more than 50 items', async () => {
      const items = Array.from({ length: 51 }, (_, i) => ({ type: 'record', args: { id: `many-${i}` } }));
      expectFail(await upload(app.client, items), 'too_many_items', 'E0040');
      expect((await lookup(app.client, [i2c('record', 'many-0')])).body.items).toEqual([{}]);
      // Exactly 50 is fine.
      expect((await app.client.upload(items.slice(0, 50))).status).toBe('pending');
    });

    test('an item above 50 KB', async () => {
      const big = { type: 'record', args: { id: 'big', blob: 'x'.repeat(51 * 1024) } };
      expectFail(await upload(app.client, [{ type: 'record', args: { id: 'small-with-big' } }, big]), 'item_too_large', 'E0041');
      expect((await lookup(app.client, [i2c('record', 'small-with-big')])).body.items).toEqual([{}]);
      // Just under 50 KB is fine, and 50 of them fit in one call.
      const near = (i: number) => ({ type: 'record', args: { id: `near-${i}`, blob: 'y'.repeat(50 * 1024 - 100) } });
      expect(await app.client.upload(Array.from({ length: 50 }, (_, i) => near(i)))).toEqual({ version: '1', status: 'pending' });
    });

    test('more than 500 lookups', async () => {
      const q = Array.from({ length: 501 }, (_, i) => i2c('record', `q-${i}`));
      expectFail(await lookup(app.client, q), 'too_many_items', 'E0040');
      const ok = await app.client.lookup(q.slice(0, 500));
      expect(ok.items).toHaveLength(500);
    });

    test('an unknown action type', async () => {
      expectFail(
        await upload(app.client, [
          { type: 'record', args: { id: 'ok-1' } },
          { type: 'mint.nft', args: { id: 'x' } },
        ]),
        'unknown_action_type',
        'E0042',
      );
      expect((await lookup(app.client, [i2c('record', 'ok-1')])).body.items).toEqual([{}]);
    });

    test('invalid args', async () => {
      expectFail(await upload(app.client, [{ type: 'record', args: { note: 'no id' } }]), 'invalid_action_args', 'E0043');
      expectFail(await upload(app.client, [{ type: 'record', args: { id: 42 } }]), 'invalid_action_args', 'E0043');
      expectFail(await upload(app.client, [{ type: 'points.create', args: { id: 'p', tokenId: 'T' } }]), 'invalid_action_args', 'E0043');
      expectFail(await upload(app.client, [{ type: 'record', args: 'nope' }]), 'invalid_request', 'E0001');
      expectFail(await upload(app.client, []), 'invalid_request', 'E0001');
    });

    test('the same id twice in one call with different content', async () => {
      expectFail(
        await upload(app.client, [
          { type: 'record', args: { id: 'twice', v: 1 } },
          { type: 'record', args: { id: 'twice', v: 2 } },
        ]),
        'duplicate_item_id',
        'E0044',
      );
    });

    test('a bad queryType', async () => {
      expectFail(await lookup(app.client, [{ type: 'record', id: 'x', queryType: 'x2y' }]), 'invalid_request', 'E0001');
    });

    test('an unsigned or wrongly signed call', async () => {
      const res = await fetch(`${kit.url}/common-chain-upload/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"items":[]}' });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ version: '1', status: 'fail', error: 'signature_missing' });
    });
  });

  test('the proof of a confirmed item verifies independently', async () => {
    const items = Array.from({ length: 7 }, (_, i) => ({ type: 'record', args: { id: `proof-${i}`, i } }));
    await app.client.upload(items);
    const results = await settle(
      app.client,
      items.map((it) => i2c('record', it.args.id)),
    );
    const nodeKey = kit.runtime.services.chain.nodeKey.publicKeyHex;
    for (const r of results) {
      const proof = await confirmedProof(app.client, r.id);
      expect(proof).toMatchObject({ version: '1', status: 'success', id: r.id, chainTrxId: r.chainTrxId, chainBlockNum: r.chainBlockNum });
      expect(independentlyVerify(proof, app.appId, nodeKey)).toBeNull();
      // The typed answer is what the shared verifier takes.
      expect(verifyChainProof(proof, nodeKey)).toEqual({ ok: true });
      // A tampered path, content or signature does not verify.
      if (proof.auditPath.length) {
        const bad = { ...proof, auditPath: [proof.auditPath[0].replace(/^./, (c: string) => (c === '0' ? '1' : '0')), ...proof.auditPath.slice(1)] };
        expect(independentlyVerify(bad, app.appId)).toBe('root mismatch');
      }
      expect(independentlyVerify({ ...proof, content: proof.content.replace('proof-', 'proof_') }, app.appId)).toBe('content hash != id');
      expect(independentlyVerify({ ...proof, block: { ...proof.block, time: proof.block.time + 1 } }, app.appId)).toBe('block hash mismatch');
    }
  });

  test('a malformed on-chain id in the proof path is refused', async () => {
    const bad = await app.client.call<any>('GET', '/common-chain-upload/proof/xyz');
    expect(bad.httpStatus).toBe(400);
    expect(bad.body).toMatchObject({ version: '1', status: 'fail', error: 'invalid_request' });
  });

  test('blocks link up and are signed by the node key', async () => {
    const { db } = kit.runtime.db;
    const blocks = await db.selectFrom('chain_blocks').selectAll().orderBy('number').execute();
    expect(blocks.length).toBeGreaterThan(1);
    for (let i = 1; i < blocks.length; i++) {
      expect(blocks[i].number).toBe(blocks[i - 1].number + 1);
      expect(blocks[i].prev_hash).toBe(blocks[i - 1].hash);
    }
    expect(blocks[0].prev_hash).toBe('0'.repeat(64));
    const report = await kit.runtime.services.chain.verify();
    expect(report).toMatchObject({ ok: true });
  });
});

describeEachBackend('chain queue before sealing', (backend) => {
  let kit: TestKit;
  let app: Awaited<ReturnType<TestKit['newApp']>>;

  let env: NodeJS.ProcessEnv;

  // No sealer runs in this instance: the test seals by hand.
  beforeAll(async () => {
    env = backend.env();
    kit = await startTestKit(backend, { ...env, CHAIN_SEALER: 'off', CHAIN_SEAL_INTERVAL: '50ms' });
    app = await kit.newApp();
  });
  afterAll(() => kit.close());

  test('queued items answer {id: ""}, their proof says pending, and sealing confirms them', async () => {
    await app.client.upload([{ type: 'record', args: { id: 'queued' } }]);
    // Several seal intervals go by (on the kit's clock): nothing in this instance seals.
    await kit.advance(300);
    const before = await app.client.lookup([i2c('record', 'queued'), i2c('record', 'unknown')]);
    expect(before).toEqual({ version: '1', status: 'success', items: [{ id: '' }, {}] });
    const id = createHash('sha256').update('{"args":{"id":"queued"},"type":"record"}').digest('hex');
    // `pending` is an answer of the proof endpoint, not an error: the typed method returns it.
    expect(await app.client.proof(id)).toEqual({ version: '1', status: 'pending' });
    // c2i of a queued item is pending too.
    expect((await app.client.lookup([{ type: 'record', id, queryType: 'c2i' }])).items).toEqual([{ id: '' }]);

    const sealed = await kit.runtime.services.chain.sealer.sealOnce();
    expect(sealed).toMatchObject({ confirmed: 1, failed: 0 });
    const after = await app.client.lookup([i2c('record', 'queued')]);
    expect(after.items[0]).toEqual({ id, chainTrxId: expect.stringMatching(/^[0-9a-f]{64}$/), chainBlockNum: String(sealed.block) });
    expect((await kit.runtime.services.chain.sealer.sealOnce()).block).toBeUndefined();
  });

  test('a block holds the calls queued since the last one, in order, under one root', async () => {
    await upload(app.client, [
      { type: 'record', args: { id: 'b-1' } },
      { type: 'record', args: { id: 'b-2' } },
    ]);
    await upload(app.client, [{ type: 'record', args: { id: 'b-3' } }]);
    const sealed = await kit.runtime.services.chain.sealer.sealOnce();
    expect(sealed.confirmed).toBe(3);
    const items = await settle(
      app.client,
      ['b-1', 'b-2', 'b-3'].map((id) => i2c('record', id)),
    );
    expect(new Set(items.map((r) => r.chainBlockNum))).toEqual(new Set([String(sealed.block)]));
    const proofs = await Promise.all(items.map((r) => confirmedProof(app.client, r.id)));
    expect(proofs.map((p) => p.leafIndex)).toEqual([0, 1, 2]);
    for (const p of proofs) expect(independentlyVerify(p, app.appId)).toBeNull();
  });

  test('`kit chain seal` seals what is queued; `kit chain key` prints the node key', async () => {
    await upload(app.client, [{ type: 'record', args: { id: 'by-kit' } }]);
    expect((await lookup(app.client, [i2c('record', 'by-kit')])).body.items).toEqual([{ id: '' }]);
    // A writing command runs as its own process, as operators run it (one SQLite connection per process).
    const sealed = await runKitCommand(['chain', 'seal'], env);
    expect(sealed.code).toBe(0);
    expect(JSON.parse(sealed.stdout.trim())).toEqual({ blocks: 1, confirmed: 1, failed: 0 });
    const out: string[] = [];
    expect((await lookup(app.client, [i2c('record', 'by-kit')])).body.items[0].chainTrxId).toMatch(/^[0-9a-f]{64}$/);
    expect(await runKit(['chain', 'key'], env, (l) => out.push(l))).toBe(0);
    expect(JSON.parse(out[0])).toEqual({ publicKey: kit.runtime.services.chain.nodeKey.publicKeyHex, pem: expect.stringContaining('BEGIN PUBLIC KEY') });
  });
});
