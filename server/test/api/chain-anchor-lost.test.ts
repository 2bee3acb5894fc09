/**
 * An anchor transaction the EVM node loses while the anchorer waits for it (the node restarted, its
 * mempool dropped): noticed within a few polls, sent again as it is while its nonce is free, or the
 * range anchored anew with a new nonce when another transaction took that one; counted in
 * `kit_chain_anchor_resent_total`. One the node keeps but does not mine because the chain's fees rose
 * above its own: replaced after an interval by one of the same nonce at the fees asked now (at least
 * the node's least bump higher), counted in `kit_chain_anchor_repriced_total`. Nothing is anchored
 * twice or skipped. A real EVM node (anvil) whose automatic mining is off to keep the transaction
 * pending, `anvil_dropTransaction` and `anvil_setNextBlockBaseFeePerGas`.
 */
import { computeAddress } from 'ethers';
import type { AnchoredProof, KitClient } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { ANVIL_KEY, startAnvil, startRelay, type Anvil } from '../support/anvil';
import { i2c, settle, upload } from './chain-helpers';
import { anchoredEvents, expectContiguousAnchors, metricValue, kitJson } from './anchor-helpers';
import { waitFor } from '../support/wait';

const SENDER = computeAddress(ANVIL_KEY);

describeEachBackend('an anchor transaction the EVM node loses', (backend) => {
  let anvil: Anvil;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let kit: TestKit;
  let contract: string;
  let app: { appId: string; appSecret: string; client: KitClient };
  let round = 0;

  beforeAll(async () => {
    anvil = await startAnvil();
    // The kit reaches the node through a relay the test can switch off.
    relay = await startRelay(anvil.url);
    const env = { ...backend.env(), CHAIN_ANCHOR_RPC_URL: relay.url, CHAIN_ANCHOR_KEY: ANVIL_KEY };
    const deployed = await kitJson(['chain', 'anchor', 'deploy'], env);
    expect(deployed.code).toBe(0);
    contract = deployed.result.contract;
    kit = await startTestKit(backend, { ...env, CHAIN_ANCHOR_CONTRACT: contract, CHAIN_ANCHOR_INTERVAL: '200ms', CHAIN_SEAL_INTERVAL: '100ms' });
    app = await kit.newApp();
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
    await relay?.close();
    await anvil?.stop();
  });
  afterEach(async () => {
    relay.up = true;
    await anvil.rpc('evm_setAutomine', [true]);
  });

  const pendingTxs = async () => Number((await anvil.rpc<{ pending: string }>('txpool_status')).pending);
  /** The one pending transaction of the anchoring key, as the node holds it. */
  const pendingAnchor = async () => {
    const content = await anvil.rpc<{ pending: Record<string, Record<string, { hash: string; nonce: string }>> }>('txpool_content');
    const [tx] = Object.entries(content.pending).flatMap(([from, txs]) => (from.toLowerCase() === SENDER.toLowerCase() ? Object.values(txs) : []));
    return tx ? { hash: tx.hash, nonce: Number(BigInt(tx.nonce)) } : undefined;
  };
  /** A transaction's fees as the node holds it. */
  const feesOf = async (hash: string) => {
    const tx = await anvil.rpc<{ maxFeePerGas: string; maxPriorityFeePerGas: string }>('eth_getTransactionByHash', [hash]);
    return { maxFee: BigInt(tx.maxFeePerGas), tip: BigInt(tx.maxPriorityFeePerGas) };
  };
  const minedNonce = async () => Number(BigInt(await anvil.rpc<string>('eth_getTransactionCount', [SENDER, 'latest'])));
  const repriced = async () => metricValue(await (await fetch(`${kit.url}/metrics`)).text(), 'kit_chain_anchor_repriced_total') ?? 0;
  const resent = async (nonce: 'same' | 'new') =>
    metricValue(await (await fetch(`${kit.url}/metrics`)).text(), `kit_chain_anchor_resent_total{nonce="${nonce}"}`) ?? 0;
  const latestBlock = async () => (await kit.runtime.services.chain.stores.ledger.latestBlock(kit.runtime.db.db))!.number;
  const blockHashes = async (from: number, to: number) => (await kit.runtime.services.chain.stores.anchors.blockHashes(from, to)).map((b) => b.hash);
  const uploadBlock = async () => {
    const items = Array.from({ length: 2 }, (_, i) => ({ type: 'record', args: { id: `lost-${round}-${i}` } }));
    round++;
    await upload(app.client, items);
    const answers = await settle(
      app.client,
      items.map((it) => i2c('record', it.args.id)),
      15_000,
    );
    return answers[0].id as string;
  };
  const anchoredProof = (id: string) =>
    waitFor(async () => {
      const p = await app.client.proof(id);
      return p.status === 'success' && p.anchor ? (p as AnchoredProof) : undefined;
    }, `the anchor of ${id}`);
  /** Everything sealed so far anchored, and the node mining again by itself. */
  const settled = async () => {
    const latest = await latestBlock();
    await waitFor(async () => {
      const events = await anchoredEvents(anvil.url, contract);
      return (events.at(-1)?.toBlock ?? 0) === latest ? true : undefined;
    }, 'every block anchored');
  };

  /**
   * One block mined by hand, in which `hash` anchors `id`'s block; then the node mines by itself again
   * until every sealed block is anchored, the ranges consecutive. The contract's events.
   */
  const minedAndSettled = async (id: string, hash: string) => {
    await anvil.rpc('evm_mine');
    const proof = await anchoredProof(id);
    expect(proof.anchor!.txHash).toBe(hash);
    await anvil.rpc('evm_setAutomine', [true]);
    await settled();
    const events = await anchoredEvents(anvil.url, contract);
    await expectContiguousAnchors(events, blockHashes, await latestBlock());
    return events;
  };

  test('dropped while its nonce is free: sent again as it is (same nonce, same hash) and anchored once', async () => {
    await anvil.rpc('evm_setAutomine', [false]);
    const id = await uploadBlock();
    const lost = await waitFor(pendingAnchor, 'the anchor transaction to wait in the mempool');
    expect(await minedNonce()).toBe(lost.nonce);
    await anvil.rpc('anvil_dropTransaction', [lost.hash]);
    expect(await pendingTxs()).toBe(0);

    await waitFor(async () => ((await resent('same')) >= 1 && (await pendingTxs()) === 1 ? true : undefined), 'the anchorer to send it again');
    expect(await pendingAnchor()).toEqual(lost);
    const events = await minedAndSettled(id, lost.hash);
    expect(await resent('new')).toBe(0);
    // Every transaction of the key (after the deployment) anchored a range: nothing was sent twice.
    expect(await minedNonce()).toBe(1 + events.length);
  }, 60_000);

  test('dropped and its nonce taken by another transaction: the range is anchored anew with a new nonce', async () => {
    await anvil.rpc('evm_setAutomine', [false]);
    const id = await uploadBlock();
    const lost = await waitFor(pendingAnchor, 'the anchor transaction to wait in the mempool');
    // While the kit cannot reach the node: the transaction is dropped, and the operator's own
    // transfer from the same account takes its nonce.
    relay.up = false;
    await anvil.rpc('anvil_dropTransaction', [lost.hash]);
    await anvil.rpc('eth_sendTransaction', [{ from: SENDER, to: SENDER, value: '0x1', nonce: `0x${lost.nonce.toString(16)}` }]);
    await anvil.rpc('evm_mine');
    expect(await minedNonce()).toBe(lost.nonce + 1);
    relay.up = true;

    await waitFor(async () => ((await resent('new')) >= 1 && (await pendingTxs()) === 1 ? true : undefined), 'the range sent anew');
    const again = (await pendingAnchor())!;
    expect(again.nonce).toBe(lost.nonce + 1);
    const events = await minedAndSettled(id, again.hash);
    // The key's transactions: the deployment, one per anchor, and the transfer.
    expect(await minedNonce()).toBe(1 + events.length + 1);
  }, 60_000);

  /** Raises the base fee of the next block to `times` the max fee `offered`; anvil keeps the transaction, now unminable. */
  const raiseNextBaseFee = async (offered: bigint, times: bigint) => {
    await anvil.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(offered * times).toString(16)}`]);
    const history = await anvil.rpc<{ baseFeePerGas: string[] }>('eth_feeHistory', ['0x1', 'latest', []]);
    expect(BigInt(history.baseFeePerGas.at(-1)!)).toBe(offered * times);
  };
  /** The pending anchor replaced by one of the same nonce, both fees at least the node's 10 % higher; then mined once mining resumes. */
  const replacedAndAnchored = async (id: string, waiting: { hash: string; nonce: number }, offered: { maxFee: bigint; tip: bigint }) => {
    const replacement = await waitFor(async () => {
      const p = await pendingAnchor();
      return p && p.hash !== waiting.hash && (await repriced()) >= 1 ? p : undefined;
    }, 'the replacement');
    expect(replacement.nonce).toBe(waiting.nonce);
    expect(await pendingTxs()).toBe(1);
    const raised = await feesOf(replacement.hash);
    expect(raised.maxFee * 100n).toBeGreaterThanOrEqual(offered.maxFee * 110n);
    expect(raised.tip * 100n).toBeGreaterThanOrEqual(offered.tip * 110n);
    // Written down before it left: a restart would wait for the replacement.
    expect(await kit.runtime.services.chain.stores.anchors.pending(contract.toLowerCase())).toMatchObject({ tx_hash: replacement.hash, nonce: waiting.nonce });

    // Mining resumes: the replacement is mined, the anchor completes, nothing was sent twice.
    await minedAndSettled(id, replacement.hash);
    // Of the key's transactions since, only the replacement was mined.
    expect(await minedNonce()).toBe(waiting.nonce + 1);
  };

  test('kept unmined below the fees the node asks: replaced after an interval with the same nonce at higher fees, and anchored once mining resumes', async () => {
    await anvil.rpc('evm_setAutomine', [false]);
    const id = await uploadBlock();
    const waiting = await waitFor(pendingAnchor, 'the anchor transaction to wait in the mempool');
    const offered = await feesOf(waiting.hash);
    const before = { repriced: await repriced(), same: await resent('same') };
    // The chain's fees rise above what it offers; no block is mined, the node keeps it.
    await raiseNextBaseFee(offered.maxFee, 4n);
    await replacedAndAnchored(id, waiting, offered);
    expect(await repriced()).toBe(before.repriced + 1);
    // Nothing was lost meanwhile: no copy sent again as it was.
    expect(await resent('same')).toBe(before.same);
  }, 60_000);

  test('dropped by the node because the fees rose above its own: not sent again as it is (the node would refuse it) but re-priced', async () => {
    await anvil.rpc('evm_setAutomine', [false]);
    const id = await uploadBlock();
    const waiting = await waitFor(pendingAnchor, 'the anchor transaction to wait in the mempool');
    const offered = await feesOf(waiting.hash);
    // While the kit cannot reach the node: the fees rise and a block is mined without it; anvil drops it.
    relay.up = false;
    await raiseNextBaseFee(offered.maxFee, 4n);
    await anvil.rpc('evm_mine');
    expect(await pendingTxs()).toBe(0);
    expect(await minedNonce()).toBe(waiting.nonce);
    await raiseNextBaseFee(offered.maxFee, 4n);
    relay.up = true;
    await replacedAndAnchored(id, waiting, offered);
  }, 60_000);
});
