/**
 * The EVM side of anchoring, through ethers and JSON-RPC: deploying the contract, reading how far
 * it has anchored, sending one range and waiting for its confirmations, and finding an `Anchored`
 * event that this database did not record (a crash between sending and recording).
 */
import { Contract, ContractFactory, FetchRequest, Interface, JsonRpcProvider, Network, Wallet, isError, type Log, type TransactionReceipt } from 'ethers';
import { ANCHORED_EVENT_TOPIC } from '@kit/shared';
import artifact from './kit-anchor.json';
import { AnchorRefused, type AnchoredEvent } from './anchored';

export type { AnchoredEvent };

export const ANCHOR_ABI = artifact.abi;
export const ANCHOR_BYTECODE = artifact.bytecode;
const iface = new Interface(ANCHOR_ABI);

/** Time limit of one RPC call. */
const RPC_TIMEOUT_MS = 15_000;
/** Blocks per `eth_getLogs` call (public endpoints cap the range a query may span). */
const LOG_PAGE = 5_000;

export { AnchorRefused };

const bytes32 = (hex: string) => `0x${hex.replace(/^0x/, '')}`;
const plain = (hex: string) => hex.replace(/^0x/, '').toLowerCase();

function decode(log: Log): AnchoredEvent {
  const parsed = iface.parseLog({ topics: [...log.topics], data: log.data })!;
  return {
    fromBlock: Number(parsed.args.fromBlock),
    toBlock: Number(parsed.args.toBlock),
    lastBlockHash: plain(parsed.args.lastBlockHash),
    root: plain(parsed.args.root),
    txHash: log.transactionHash,
    evmBlock: log.blockNumber,
  };
}

/** The chain id, asked without ethers: its provider retries network detection forever while the node is down. */
async function chainIdOf(rpcUrl: string): Promise<number> {
  let body: { result?: string; error?: { message: string } };
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(RPC_TIMEOUT_MS),
    });
    body = res.ok ? await res.json() : { error: { message: `HTTP ${res.status}` } };
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    throw new Error(`the EVM node at ${new URL(rpcUrl).origin} cannot be reached (${cause ?? (e as Error).message})`);
  }
  if (!body.result) throw new Error(`eth_chainId at ${new URL(rpcUrl).origin}: ${body.error?.message ?? 'no answer'}`);
  return Number(BigInt(body.result));
}

export class AnchorChain {
  private constructor(
    readonly provider: JsonRpcProvider,
    readonly chainId: number,
    private readonly wallet?: Wallet,
    private readonly contract?: Contract,
  ) {}

  /** Connects to `rpcUrl`; `key` signs (deploy, anchor), `contract` is the deployed anchor contract. */
  static async connect(rpcUrl: string, opts: { key?: string; contract?: string; pollingMs?: number } = {}): Promise<AnchorChain> {
    const chainId = await chainIdOf(rpcUrl);
    const network = Network.from(chainId);
    const request = new FetchRequest(rpcUrl);
    request.timeout = RPC_TIMEOUT_MS;
    const provider = new JsonRpcProvider(request, network, {
      staticNetwork: network,
      pollingInterval: opts.pollingMs ?? 4_000,
      batchMaxCount: 1,
      // No reuse of answers: a nonce cached for 250 ms would be used twice by anchors sent in quick succession.
      cacheTimeout: -1,
    });
    const wallet = opts.key ? new Wallet(opts.key, provider) : undefined;
    const contract = opts.contract ? new Contract(opts.contract, ANCHOR_ABI, wallet ?? provider) : undefined;
    return new AnchorChain(provider, chainId, wallet, contract);
  }

  private get anchorContract(): Contract {
    if (!this.contract) throw new Error('no anchor contract configured (CHAIN_ANCHOR_CONTRACT)');
    return this.contract;
  }

  /** Deploys the contract; the signing key becomes its only writer. */
  async deploy(): Promise<{ contract: string; chainId: number; txHash: string; gasUsed: bigint }> {
    if (!this.wallet) throw new Error('deploying needs a key (CHAIN_ANCHOR_KEY)');
    const deployed = await new ContractFactory(ANCHOR_ABI, ANCHOR_BYTECODE, this.wallet).deploy();
    const tx = deployed.deploymentTransaction()!;
    const receipt = await tx.wait();
    if (!receipt || receipt.status !== 1) throw new Error(`the deployment ${tx.hash} failed`);
    return { contract: await deployed.getAddress(), chainId: this.chainId, txHash: tx.hash, gasUsed: receipt.gasUsed };
  }

  /** The last ledger block the contract holds (0: none). */
  async lastToBlock(): Promise<number> {
    return Number(await this.anchorContract.lastToBlock());
  }

  /**
   * Anchors `fromBlock..toBlock` and waits for `confirmations`. Throws AnchorRefused when the
   * contract refuses the range, before sending (a simulated call) or after (a failed receipt).
   */
  async anchor(
    range: { fromBlock: number; toBlock: number; lastBlockHash: string; root: string },
    confirmations: number,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<AnchoredEvent> {
    const c = this.anchorContract;
    const args = [range.fromBlock, range.toBlock, bytes32(range.lastBlockHash), bytes32(range.root)] as const;
    let tx;
    try {
      await c.anchor.staticCall(...args);
      tx = await c.anchor(...args);
    } catch (e) {
      if (isError(e, 'CALL_EXCEPTION'))
        throw new AnchorRefused(`the contract refused blocks ${range.fromBlock}..${range.toBlock}: ${e.revert?.name ?? e.shortMessage}`);
      throw e;
    }
    const receipt = await this.confirmed(tx.hash, confirmations, timeoutMs, signal);
    if (receipt.status !== 1) throw new AnchorRefused(`the contract refused blocks ${range.fromBlock}..${range.toBlock} in transaction ${tx.hash}`);
    const log = receipt.logs.find((l) => l.address.toLowerCase() === this.address && l.topics[0] === ANCHORED_EVENT_TOPIC);
    if (!log) throw new Error(`anchor transaction ${tx.hash} emitted no Anchored event`);
    return { ...decode(log), gasUsed: receipt.gasUsed };
  }

  /**
   * Waits for the receipt and its confirmations by polling: RPC errors meanwhile (an outage) are
   * waited out until `timeoutMs`, and `signal` (the service stopping) ends the wait at once.
   */
  private async confirmed(hash: string, confirmations: number, timeoutMs: number, signal?: AbortSignal): Promise<TransactionReceipt> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      signal?.throwIfAborted();
      const receipt = await this.provider.getTransactionReceipt(hash).catch(() => null);
      if (receipt && (await receipt.confirmations().catch(() => 0)) >= confirmations) return receipt;
      if (Date.now() > deadline) throw new Error(`anchor transaction ${hash} not confirmed within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, this.provider.pollingInterval));
    }
  }

  /** The newest EVM block number. */
  head(): Promise<number> {
    return this.provider.getBlockNumber();
  }

  get address(): string {
    return String(this.anchorContract.target).toLowerCase();
  }

  /**
   * The `Anchored` event whose range starts at `fromBlock`, searched from EVM block `since` (the
   * last recorded anchor's block, or the contract's deployment) to the newest block.
   */
  async findAnchored(fromBlock: number, since?: number): Promise<AnchoredEvent | undefined> {
    const start = since ?? Number(await this.anchorContract.deployedAt());
    const latest = await this.provider.getBlockNumber();
    const topics = [ANCHORED_EVENT_TOPIC, `0x${fromBlock.toString(16).padStart(64, '0')}`];
    for (let from = start; from <= latest; from += LOG_PAGE) {
      const logs = await this.provider.getLogs({ address: this.address, topics, fromBlock: from, toBlock: Math.min(latest, from + LOG_PAGE - 1) });
      const live = logs.filter((l) => !l.removed);
      if (live.length) return decode(live[0]);
    }
    return undefined;
  }

  destroy(): void {
    this.provider.destroy();
  }
}
