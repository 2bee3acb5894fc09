/**
 * The contract on a real local EVM node (anvil): consecutive ranges only, one writer, the gas that
 * docs/chain.md quotes, and anchors sent back to back (each with a fresh nonce).
 */
import { Wallet } from 'ethers';
import { ANVIL_KEY, startAnvil, type Anvil } from '../../../test/support/anvil';
import { AnchorChain, AnchorRefused } from './anchor-evm';

/** anvil's second default account: not the deployer. */
const OTHER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const hash = (byte: string) => byte.repeat(32);

describe('KitAnchor on anvil', () => {
  let anvil: Anvil;
  const chains: AnchorChain[] = [];
  let contract: string;
  let deployGas: bigint;

  const connect = async (key: string) => {
    const c = await AnchorChain.connect(anvil.url, { key, contract, pollingMs: 100 });
    chains.push(c);
    return c;
  };

  beforeAll(async () => {
    anvil = await startAnvil();
    const deployer = await AnchorChain.connect(anvil.url, { key: ANVIL_KEY, pollingMs: 50 });
    chains.push(deployer);
    ({ contract, gasUsed: deployGas } = await deployer.deploy());
  });
  afterAll(async () => {
    for (const c of chains) c.destroy();
    await anvil?.stop();
  });

  test('accepts consecutive ranges sent back to back, at the gas docs/chain.md quotes', async () => {
    const writer = await connect(ANVIL_KEY);
    expect(new Wallet(OTHER_KEY).address).not.toBe(new Wallet(ANVIL_KEY).address);
    expect(await writer.lastToBlock()).toBe(0);
    const gas: bigint[] = [];
    let from = 1;
    for (const size of [1, 60, 1, 10_000]) {
      const e = await writer.anchor({ fromBlock: from, toBlock: from + size - 1, lastBlockHash: hash('ab'), root: hash('cd') }, 1, 10_000);
      expect(e).toMatchObject({ fromBlock: from, toBlock: from + size - 1, lastBlockHash: hash('ab'), root: hash('cd') });
      gas.push(e.gasUsed!);
      from += size;
    }
    expect(await writer.lastToBlock()).toBe(from - 1);
    // The first anchor writes the storage slot from zero; the later ones only change it. The range size costs nothing.
    expect(Number(deployGas)).toBeLessThan(250_000);
    expect(Number(gas[0])).toBeLessThan(50_000);
    for (const g of gas.slice(1)) expect(Number(g)).toBeLessThan(31_000);
    // A lost record is found again by its event.
    expect(await writer.findAnchored(2)).toMatchObject({ fromBlock: 2, toBlock: 61, root: hash('cd') });
    expect(await writer.findAnchored(from)).toBeUndefined();
  });

  test('refuses a gap, an overlap, an empty range and any other sender', async () => {
    const writer = await connect(ANVIL_KEY);
    const next = (await writer.lastToBlock()) + 1;
    const range = (fromBlock: number, toBlock: number) => ({ fromBlock, toBlock, lastBlockHash: hash('01'), root: hash('02') });
    await expect(writer.anchor(range(next + 1, next + 1), 1, 10_000)).rejects.toThrow(AnchorRefused);
    await expect(writer.anchor(range(next - 1, next + 1), 1, 10_000)).rejects.toThrow(/NotNext/);
    await expect(writer.anchor(range(next, next - 1), 1, 10_000)).rejects.toThrow(/EmptyRange/);
    const stranger = await connect(OTHER_KEY);
    await expect(stranger.anchor(range(next, next), 1, 10_000)).rejects.toThrow(/NotWriter/);
    expect(await writer.lastToBlock()).toBe(next - 1);
  });

  test('an unreachable node is named by its origin only (RPC URLs often carry an API key in the path)', async () => {
    const { freePort } = await import('../../../test/support/process');
    const port = await freePort();
    await expect(AnchorChain.connect(`http://127.0.0.1:${port}/v3/secret-api-key`)).rejects.toThrow(
      new Error(`the EVM node at http://127.0.0.1:${port} cannot be reached (ECONNREFUSED)`),
    );
  });
});
