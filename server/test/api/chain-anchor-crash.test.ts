/**
 * A service killed with SIGKILL while its anchor transaction waits in the EVM node's mempool: the
 * next life finds the transaction written down before it was sent and waits for it rather than
 * sending the range again behind it; when the node then drops it, it is sent again as it is. No
 * range is anchored twice or skipped, no transaction wasted. Real processes, a real EVM node (anvil)
 * whose automatic mining the test switches off to hold the first transaction pending.
 */
import { computeAddress } from 'ethers';
import { KitClient } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startServiceProcess, type ServiceProcess } from '../support/process';
import { startTestKit, type TestKit } from '../support/kit';
import { ANVIL_KEY, startAnvil, type Anvil } from '../support/anvil';
import { i2c, settle, upload } from './chain-helpers';
import { anchoredEvents, metricValue, kitJson } from './anchor-helpers';
import { waitFor } from '../support/wait';

const SENDER = computeAddress(ANVIL_KEY);

describeEachBackend('anchoring survives a crash in the middle of an anchor', (backend) => {
  let anvil: Anvil;
  let env: NodeJS.ProcessEnv;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await service?.kill();
    await anvil?.stop();
  });

  const kit = (...args: string[]) => kitJson(args, env);
  const pendingTxs = async () => Number((await anvil.rpc<{ pending: string }>('txpool_status')).pending);
  /** The one pending transaction of the anchoring key, as the node holds it. */
  const pendingAnchor = async () => {
    const content = await anvil.rpc<{ pending: Record<string, Record<string, { hash: string; nonce: string }>> }>('txpool_content');
    const [tx] = Object.entries(content.pending).flatMap(([from, txs]) => (from.toLowerCase() === SENDER.toLowerCase() ? Object.values(txs) : []));
    return tx ? { hash: tx.hash, nonce: Number(BigInt(tx.nonce)) } : undefined;
  };
  const uploadBlock = async (client: KitClient, tag: string) => {
    const items = Array.from({ length: 3 }, (_, i) => ({ type: 'record', args: { id: `${tag}-${i}` } }));
    await upload(client, items);
    const answers = await settle(
      client,
      items.map((it) => i2c('record', it.args.id)),
      15_000,
    );
    expect(answers.every((a) => a.chainTrxId)).toBe(true);
  };

  test('a restart while the anchor waits in the mempool: the next life waits for that transaction, and sends it again as it is when the node drops it', async () => {
    env = { ...backend.env(), CHAIN_ANCHOR_RPC_URL: anvil.url, CHAIN_ANCHOR_KEY: ANVIL_KEY };
    const deployed = await kit('chain', 'anchor', 'deploy');
    expect(deployed.code).toBe(0);
    env = { ...env, CHAIN_ANCHOR_CONTRACT: deployed.result.contract, CHAIN_ANCHOR_INTERVAL: '200ms', CHAIN_SEAL_INTERVAL: '100ms' };
    const app = await kit('app', 'create', '--name', 'anchor-crash');
    const creds = app.result as { appId: string; appSecret: string };

    // First life: its anchor transaction stays in the mempool, then the process dies.
    await anvil.rpc('evm_setAutomine', [false]);
    service = await startServiceProcess(env);
    await uploadBlock(new KitClient({ baseUrl: service.url, ...creds }), 'first');
    const first = await waitFor(pendingAnchor, 'the first anchor transaction to be sent');
    await service.kill();

    // Second life: the transaction was written down before it was sent; it waits for it and sends nothing behind it.
    service = await startServiceProcess(env);
    const client = new KitClient({ baseUrl: service.url, ...creds });
    const metric = async (name: string) => metricValue(await (await fetch(`${service!.url}/metrics`)).text(), name);
    // A round of the second life: what it logs, not the lag metric alone (which the start already reads from the
    // database, before any round on a busy machine).
    await waitFor(() => service!.output().includes('waiting for the anchor transaction sent before'), 'a round of the second life');
    await waitFor(async () => ((await metric('kit_chain_anchor_lag_blocks')) === 1 ? true : undefined), 'the lag of the second life');
    expect(await pendingTxs()).toBe(1);

    // The node loses it (restarted, mempool dropped): sent again byte for byte, its nonce being free.
    await anvil.rpc('anvil_dropTransaction', [first.hash]);
    await waitFor(
      async () => ((await metric('kit_chain_anchor_resent_total{nonce="same"}')) === 1 && (await pendingTxs()) === 1 ? true : undefined),
      'the transaction sent again',
    );
    expect(await pendingAnchor()).toEqual(first);
    expect(service.output()).toContain('the EVM node no longer knows the anchor transaction: sending it again with the same nonce');
    await anvil.rpc('evm_mine');
    await anvil.rpc('evm_setAutomine', [true]);

    await uploadBlock(client, 'second');
    const latest = 2;
    await waitFor(async () => {
      const events = await anchoredEvents(anvil.url, deployed.result.contract);
      return events.length && events[events.length - 1].toBlock === latest ? true : undefined;
    }, 'every block anchored');
    const events = await anchoredEvents(anvil.url, deployed.result.contract);
    // The first life's transaction anchored block 1, then the rest: consecutive, none twice.
    expect(events[0]).toMatchObject({ fromBlock: 1, toBlock: 1, txHash: first.hash });
    let next = 1;
    for (const e of events) {
      expect(e.fromBlock).toBe(next);
      next = e.toBlock + 1;
    }
    // Every transaction of the key (after the deployment) anchored a range: none was sent twice or refused.
    expect(Number(BigInt(await anvil.rpc<string>('eth_getTransactionCount', [SENDER, 'latest'])))).toBe(1 + events.length);
    const proof = await waitFor(async () => {
      const p = await client.proof((await settle(client, [i2c('record', 'first-0')]))[0].id);
      return p.status === 'success' && p.anchor ? p : undefined;
    }, 'an anchored proof of the first block');
    expect(proof.anchor).toMatchObject({ fromBlock: 1, toBlock: 1, txHash: first.hash });
    expect(await service.stop()).toBe(0);
    service = undefined;

    // What the database recorded agrees with the chain, range by range.
    expect(await kit('chain', 'verify', '--anchors')).toMatchObject({
      code: 0,
      result: { ok: true, anchors: { ok: true, anchors: events.length, lastAnchored: latest } },
    });
  }, 120_000);
  test('stopping while an anchor waits for its confirmation ends at once, and the next start records it from the chain', async () => {
    // The node mines as it is sent to, whatever a test before this one left it doing (the deployment waits for it).
    await anvil.rpc('evm_setAutomine', [true]);
    env = { ...backend.env(), CHAIN_ANCHOR_RPC_URL: anvil.url, CHAIN_ANCHOR_KEY: ANVIL_KEY };
    const deployed = await kit('chain', 'anchor', 'deploy');
    env = { ...env, CHAIN_ANCHOR_CONTRACT: deployed.result.contract, CHAIN_ANCHOR_INTERVAL: '200ms', CHAIN_SEAL_INTERVAL: '100ms' };
    await anvil.rpc('evm_setAutomine', [false]);
    let first: TestKit | undefined = await startTestKit(backend, env);
    try {
      const app = await first.newApp();
      await uploadBlock(app.client, 'stop');
      await waitFor(async () => ((await pendingTxs()) === 1 ? true : undefined), 'the anchor transaction to be sent');
      const started = Date.now();
      await first.close();
      first = undefined;
      expect(Date.now() - started).toBeLessThan(5_000);
      // Mined now, in a block of its own with nothing after it. Mined by hand before automine is switched
      // back on: switching it on mines what is pending in the background, and a mine sent meanwhile would
      // add an empty block after it (a second confirmation too early).
      await anvil.rpc('evm_mine');
      expect(await pendingTxs()).toBe(0);
      await anvil.rpc('evm_setAutomine', [true]);

      // Two confirmations wanted: the anchor found on the chain is recorded only once a second block follows it.
      const second = await startTestKit(backend, { ...env, CHAIN_ANCHOR_CONFIRMATIONS: '2' });
      try {
        const client = new KitClient({ baseUrl: second.url, appId: app.appId, appSecret: app.appSecret });
        const [{ id }] = await settle(client, [i2c('record', 'stop-0')]);
        const lagBlocks = async () => metricValue(await (await fetch(`${second.url}/metrics`)).text(), 'kit_chain_anchor_lag_blocks');
        await waitFor(async () => ((await lagBlocks()) === 1 ? true : undefined), 'a round that saw the anchor');
        expect(await client.proof(id)).not.toHaveProperty('anchor');
        await anvil.rpc('evm_mine');
        const proof = await waitFor(async () => {
          const p = await client.proof(id);
          return p.status === 'success' && p.anchor ? p : undefined;
        }, 'the anchor recorded from the chain');
        const [event] = await anchoredEvents(anvil.url, deployed.result.contract);
        expect(proof.anchor).toMatchObject({ fromBlock: 1, toBlock: 1, txHash: event.txHash });
      } finally {
        await second.close();
      }
    } finally {
      await first?.close();
      await anvil.rpc('evm_setAutomine', [true]);
    }
  }, 60_000);
});
