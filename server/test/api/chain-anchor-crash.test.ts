/**
 * A service killed with SIGKILL while its anchor transaction waits in the EVM node's mempool: the
 * next life, not knowing of it, sends the same range again; the contract refuses the second one,
 * and the worker recovers by reading what the contract holds and recording the first life's
 * anchor. No range is anchored twice or skipped. Real processes, a real EVM node (anvil) whose
 * automatic mining the test switches off to hold the first transaction pending.
 */
import { KitClient } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startServiceProcess, type ServiceProcess } from '../support/process';
import { startTestKit, type TestKit } from '../support/kit';
import { ANVIL_KEY, startAnvil, type Anvil } from '../support/anvil';
import { runKit } from '../../src/kit/main';
import { i2c, settle, upload } from './chain-helpers';
import { anchoredEvents, metricValue, until } from './anchor-helpers';

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

  const kit = async (...args: string[]) => {
    const lines: string[] = [];
    const code = await runKit(
      args,
      env,
      (l) => lines.push(l),
      () => undefined,
    );
    return { code, result: lines.length ? JSON.parse(lines[0]) : undefined };
  };
  const pendingTxs = async () => Number((await anvil.rpc<{ pending: string }>('txpool_status')).pending);
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

  test('the range sent twice is refused the second time, recorded once, and anchoring carries on', async () => {
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
    await until('the first anchor transaction to be sent', async () => ((await pendingTxs()) === 1 ? true : undefined));
    await service.kill();

    // Second life: the contract holds nothing yet, so it anchors the same range again (and a new block with it).
    service = await startServiceProcess(env);
    const client = new KitClient({ baseUrl: service.url, ...creds });
    await uploadBlock(client, 'second');
    const metrics = async () => (await fetch(`${service!.url}/metrics`)).text();
    const refusals = async () => metricValue(await metrics(), 'kit_chain_anchor_failures_total{reason="refused"}') ?? 0;
    // Either the node already refuses it when estimating gas, or the second transaction is sent and waits too.
    await until('the second life to try the same range', async () => ((await pendingTxs()) === 2 || (await refusals()) > 0 ? true : undefined));
    await anvil.rpc('evm_setAutomine', [true]);
    await anvil.rpc('evm_mine');

    await until('the refusal', async () => ((await refusals()) > 0 ? true : undefined));
    await uploadBlock(client, 'third');
    const latest = 3;
    await until('every block anchored', async () => {
      const events = await anchoredEvents(anvil.url, deployed.result.contract);
      return events.length && events[events.length - 1].toBlock === latest ? true : undefined;
    });
    const events = await anchoredEvents(anvil.url, deployed.result.contract);
    // The first life's range (block 1) once, then the rest: consecutive, none twice.
    expect(events[0]).toMatchObject({ fromBlock: 1, toBlock: 1 });
    let next = 1;
    for (const e of events) {
      expect(e.fromBlock).toBe(next);
      next = e.toBlock + 1;
    }
    expect(service.output()).toContain('recorded an anchor found on the chain');
    const proof = await until('an anchored proof of the first block', async () => {
      const p = await client.proof((await settle(client, [i2c('record', 'first-0')]))[0].id);
      return p.status === 'success' && p.anchor ? p : undefined;
    });
    expect(proof.anchor).toMatchObject({ fromBlock: 1, toBlock: 1, txHash: events[0].txHash });
    expect(await service.stop()).toBe(0);
    service = undefined;

    // What the database recorded agrees with the chain, range by range.
    expect(await kit('chain', 'verify', '--anchors')).toMatchObject({
      code: 0,
      result: { ok: true, anchors: { ok: true, anchors: events.length, lastAnchored: latest } },
    });
  }, 120_000);
  test('stopping while an anchor waits for its confirmation ends at once, and the next start records it from the chain', async () => {
    env = { ...backend.env(), CHAIN_ANCHOR_RPC_URL: anvil.url, CHAIN_ANCHOR_KEY: ANVIL_KEY };
    const deployed = await kit('chain', 'anchor', 'deploy');
    env = { ...env, CHAIN_ANCHOR_CONTRACT: deployed.result.contract, CHAIN_ANCHOR_INTERVAL: '200ms', CHAIN_SEAL_INTERVAL: '100ms' };
    await anvil.rpc('evm_setAutomine', [false]);
    let first: TestKit | undefined = await startTestKit(backend, env);
    try {
      const app = await first.newApp();
      await uploadBlock(app.client, 'stop');
      await until('the anchor transaction to be sent', async () => ((await pendingTxs()) === 1 ? true : undefined));
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
        await until('a round that saw the anchor', async () => ((await lagBlocks()) === 1 ? true : undefined));
        expect(await client.proof(id)).not.toHaveProperty('anchor');
        await anvil.rpc('evm_mine');
        const proof = await until('the anchor recorded from the chain', async () => {
          const p = await client.proof(id);
          return p.status === 'success' && p.anchor ? p : undefined;
        });
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
