/** Helpers of the anchoring tests: polling, reading the contract's events, reading metrics. */
import { Contract, JsonRpcProvider } from 'ethers';
import { ANCHOR_ABI } from '../../src/chain/anchor/anchor-evm';
import { anchorRoot } from '@kit/shared';
import { ANCHOR_LEAF_RULE } from '../../src/chain/anchor/anchorer';
import { ANVIL_CHAIN_ID } from '../support/anvil';
import { runKit } from '../../src/kit/main';

/** Runs a `kit` command in this process with `env`: its exit code and its first output line read as JSON. */
export async function kitJson(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; result: any }> {
  const lines: string[] = [];
  const code = await runKit(
    args,
    env,
    (l) => lines.push(l),
    () => undefined,
  );
  return { code, result: lines.length ? JSON.parse(lines[0]) : undefined };
}

/** Every `Anchored` event of the contract, in order. */
export async function anchoredEvents(rpcUrl: string, contract: string) {
  const provider = new JsonRpcProvider(rpcUrl, ANVIL_CHAIN_ID, { staticNetwork: true });
  try {
    const c = new Contract(contract, ANCHOR_ABI, provider);
    const logs = await c.queryFilter(c.filters.Anchored(), 0, 'latest');
    return logs.map((l) => {
      const args = (l as unknown as { args: { fromBlock: bigint; toBlock: bigint; lastBlockHash: string; root: string } }).args;
      return {
        fromBlock: Number(args.fromBlock),
        toBlock: Number(args.toBlock),
        root: args.root.slice(2),
        lastBlockHash: args.lastBlockHash.slice(2),
        txHash: l.transactionHash,
      };
    });
  } finally {
    provider.destroy();
  }
}

/** The ranges are consecutive from block 1 and each root is the one of the ledger's block hashes (by today's leaf rule). */
export async function expectContiguousAnchors(
  events: Awaited<ReturnType<typeof anchoredEvents>>,
  blockHashes: (from: number, to: number) => Promise<string[]>,
  upTo: number,
) {
  let next = 1;
  for (const e of events) {
    expect(e.fromBlock).toBe(next);
    const hashes = await blockHashes(e.fromBlock, e.toBlock);
    expect(e.root).toBe(anchorRoot(hashes, ANCHOR_LEAF_RULE));
    expect(e.lastBlockHash).toBe(hashes[hashes.length - 1]);
    next = e.toBlock + 1;
  }
  expect(next - 1).toBe(upTo);
}

export const metricValue = (text: string, name: string): number | undefined => {
  const m = new RegExp(`^${name.replace(/[{}"=]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};
