/**
 * Two instances on one PostgreSQL database, both configured to anchor: one holds the anchoring lock
 * and sends every anchor, the other only reports progress; when the anchorer stops, the other takes
 * over. Every transaction the key sent anchored a new range (none refused, none twice).
 */
import { computeAddress } from 'ethers';
import { KitClient } from '@kit/shared';
import { backends } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { ANVIL_KEY, startAnvil, type Anvil } from '../support/anvil';
import { i2c, settle, upload } from './chain-helpers';
import { anchoredEvents, expectContiguousAnchors, metricValue, kitJson } from './anchor-helpers';
import { waitFor } from '../support/wait';

const pg = backends().find((b) => b.name === 'postgres');
const describePg = pg ? describe : describe.skip;

describePg('two instances, one anchorer', () => {
  let anvil: Anvil;
  let a: TestKit | undefined;
  let b: TestKit | undefined;
  let contract: string;

  beforeAll(async () => {
    anvil = await startAnvil();
    const env = { ...pg!.env(), CHAIN_ANCHOR_RPC_URL: anvil.url, CHAIN_ANCHOR_KEY: ANVIL_KEY };
    const deployed = await kitJson(['chain', 'anchor', 'deploy'], env);
    expect(deployed.code).toBe(0);
    contract = deployed.result.contract;
    const settings = { ...env, CHAIN_ANCHOR_CONTRACT: contract, CHAIN_ANCHOR_INTERVAL: '200ms', CHAIN_SEAL_INTERVAL: '100ms' };
    a = await startTestKit(pg!, settings);
    b = await startTestKit(pg!, settings);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await anvil?.stop();
    await pg?.cleanup();
  });

  const anchoredBy = async (kit: TestKit) => metricValue(await (await fetch(`${kit.url}/metrics`)).text(), 'kit_chain_anchored_blocks_total') ?? 0;
  const latestBlock = async (kit: TestKit) => (await kit.runtime.services.chain.stores.ledger.latestBlock(kit.runtime.db.db))!.number;
  const hashes = (kit: TestKit) => async (from: number, to: number) =>
    (await kit.runtime.services.chain.stores.anchors.blockHashes(from, to)).map((x) => x.hash);
  const uploadBlocks = async (clients: KitClient[], tag: string, blocks: number) => {
    for (let n = 0; n < blocks; n++) {
      const client = clients[n % clients.length];
      const items = Array.from({ length: 3 }, (_, i) => ({ type: 'record', args: { id: `${tag}-${n}-${i}` } }));
      await upload(client, items);
      await settle(
        client,
        items.map((it) => i2c('record', it.args.id)),
        15_000,
      );
    }
  };
  const allAnchored = async (kit: TestKit) => {
    const latest = await latestBlock(kit);
    await waitFor(async () => {
      const events = await anchoredEvents(anvil.url, contract);
      return events.length && events[events.length - 1].toBlock === latest ? true : undefined;
    }, 'every block anchored');
    return latest;
  };

  test('only one instance anchors, and the other takes over when it stops', async () => {
    const app = await a!.newApp();
    const viaB = new KitClient({ baseUrl: b!.url, appId: app.appId, appSecret: app.appSecret });
    await uploadBlocks([app.client, viaB], 'both', 6);
    const latest = await allAnchored(a!);
    // (The counter moves once the anchor is recorded, a moment after the event is on the chain.)
    const [byA, byB] = await waitFor(async () => {
      const counts = [await anchoredBy(a!), await anchoredBy(b!)];
      return counts[0] + counts[1] === latest ? counts : undefined;
    }, 'both counters');
    // One of them anchored every block; the other none.
    expect([byA, byB].sort((x, y) => x - y)).toEqual([0, latest]);
    const [anchorer, standby] = byA ? [a!, b!] : [b!, a!];
    // The standby instance still reports how far anchoring got (from the database).
    await waitFor(
      async () => (metricValue(await (await fetch(`${standby.url}/metrics`)).text(), 'kit_chain_anchor_last_block') === latest ? true : undefined),
      'the standby metrics',
    );

    await anchorer.close();
    if (anchorer === a) a = undefined;
    else b = undefined;
    const client = new KitClient({ baseUrl: standby.url, appId: app.appId, appSecret: app.appSecret });
    await uploadBlocks([client], 'after', 2);
    const end = await allAnchored(standby);
    await waitFor(async () => ((await anchoredBy(standby)) === end - latest ? true : undefined), 'the new anchorer to count its blocks');

    const events = await anchoredEvents(anvil.url, contract);
    await expectContiguousAnchors(events, hashes(standby), end);
    const sent = Number(BigInt(await anvil.rpc<string>('eth_getTransactionCount', [computeAddress(ANVIL_KEY), 'latest'])));
    expect(sent).toBe(1 + events.length);
  }, 90_000);
});
