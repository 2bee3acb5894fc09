/**
 * The EVM side of anchoring, through ethers and JSON-RPC: deploying the contract, reading how far
 * it has anchored, signing one range (hash and nonce known before it is sent, so the caller can
 * write them down first), sending it, waiting for its confirmations while watching that the node
 * still knows it, and finding an `Anchored` event that this database did not record (a crash
 * between sending and recording).
 */
import {
  Contract,
  ContractFactory,
  FetchRequest,
  Interface,
  JsonRpcProvider,
  Network,
  Transaction,
  Wallet,
  isError,
  type Log,
  type TransactionReceipt,
  type TransactionRequest,
} from 'ethers';
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
/**
 * Polls in a row on which the node answers that it knows no transaction of that hash (no receipt,
 * `eth_getTransactionByHash` null) before the transaction counts as lost. More than one: a provider
 * behind a load balancer may not know a transaction sent through another of its nodes for a moment.
 */
export const LOST_AFTER_POLLS = 3;
/**
 * The least rise of both fees (or of the gas price) a node takes for a transaction replacing a pending
 * one of the same nonce: geth's `--txpool.pricebump` default, 10 % (anvil takes any rise).
 */
export const REPLACEMENT_BUMP_PERCENT = 10n;
/** `fee` raised by the replacement bump, rounded up: never below what the node requires. */
const bumped = (fee: bigint) => (fee * (100n + REPLACEMENT_BUMP_PERCENT) + 99n) / 100n;
const maxOf = (a: bigint, b: bigint) => (a > b ? a : b);
/** The priority fee ethers assumes for a node that suggests none (1 gwei). */
const DEFAULT_TIP = 1_000_000_000n;

export { AnchorRefused };

export interface AnchorRange {
  fromBlock: number;
  toBlock: number;
  /** Hex, with or without `0x`. */
  lastBlockHash: string;
  root: string;
}

/** An anchor transaction signed and not necessarily sent: what is written down before sending it. */
export interface SignedAnchor {
  /** `0x`-prefixed. */
  hash: string;
  nonce: number;
  /** Lower-case `0x` address of the key that signed it. */
  sender: string;
  /** The signed transaction (`0x` hex): sent again as it is when the node loses it. */
  raw: string;
}

/**
 * How a wait ended: confirmed (with the event it emitted); lost: the node knows no transaction of
 * that hash any more, and `nonceUsed` says whether the account's nonce has moved past it since
 * (then another transaction took the nonce and this one can never be mined); or stale: the node
 * has kept it unmined for `repriceAfterMs` (the caller may re-price it, then wait again).
 */
export type AnchorWait = { state: 'confirmed'; event: AnchoredEvent } | { state: 'lost'; nonceUsed: boolean } | { state: 'stale' };

/** What a wait watches besides the transaction itself. */
export interface WaitOptions {
  /** Earlier versions of the transaction (the same nonce, lower fees): any of them may be the one mined. */
  earlier?: readonly string[];
  /** After this long pending and unmined the wait ends `stale`; never when absent. */
  repriceAfterMs?: number;
}

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

  private get signer(): Wallet {
    if (!this.wallet) throw new Error('anchoring needs a key (CHAIN_ANCHOR_KEY)');
    return this.wallet;
  }

  /**
   * Signs the anchor of `range` with the account's next nonce (pending transactions counted), without
   * sending it. Throws AnchorRefused when the contract would refuse the range (a simulated call first).
   */
  async sign(range: AnchorRange): Promise<SignedAnchor> {
    const c = this.anchorContract;
    const wallet = this.signer;
    const args = [range.fromBlock, range.toBlock, bytes32(range.lastBlockHash), bytes32(range.root)] as const;
    let raw: string;
    try {
      await c.anchor.staticCall(...args);
      const request = await c.anchor.populateTransaction(...args);
      raw = await wallet.signTransaction(await wallet.populateTransaction(request));
    } catch (e) {
      if (isError(e, 'CALL_EXCEPTION'))
        throw new AnchorRefused(`the contract refused blocks ${range.fromBlock}..${range.toBlock}: ${e.revert?.name ?? e.shortMessage}`);
      throw e;
    }
    const tx = Transaction.from(raw);
    return { hash: tx.hash!, nonce: tx.nonce, sender: wallet.address.toLowerCase(), raw };
  }

  /** Lower-case `0x` address of the signing key. */
  get sender(): string {
    return this.signer.address.toLowerCase();
  }

  /** Hands a signed transaction to the node (`eth_sendRawTransaction`). */
  async send(signed: SignedAnchor): Promise<void> {
    await this.provider.broadcastTransaction(signed.raw);
  }

  /** The account's nonce as of the newest block: transactions of lower nonce are mined (or can never be). */
  private minedNonce(sender: string): Promise<number> {
    return this.provider.getTransactionCount(sender, 'latest');
  }

  /**
   * Waits for `tx`'s receipt and its confirmations by polling. RPC errors meanwhile (an outage) are
   * waited out until `timeoutMs`, and `signal` (the service stopping) ends the wait at once. When the
   * node answers on LOST_AFTER_POLLS polls in a row that it knows no such transaction (restarted,
   * mempool dropped), the wait ends as lost. Throws AnchorRefused for a failed receipt.
   */
  async wait(
    tx: Pick<SignedAnchor, 'hash' | 'nonce' | 'sender'>,
    confirmations: number,
    timeoutMs: number,
    signal?: AbortSignal,
    opts: WaitOptions = {},
  ): Promise<AnchorWait> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    // The newest version first: after a re-pricing it is the one expected.
    const versions = [tx.hash, ...(opts.earlier ?? []).filter((h) => h !== tx.hash)];
    let unknown = 0;
    for (;;) {
      signal?.throwIfAborted();
      const receipt = await this.receiptOf(versions);
      if (receipt) {
        unknown = 0;
        if ((await receipt.confirmations().catch(() => 0)) >= confirmations) return { state: 'confirmed', event: this.eventOf(receipt) };
      } else {
        // null: the node does not know it (a mined transaction it would answer, receipt or not yet);
        // an error (node down) says nothing either way.
        const known = await this.knowsAny(versions);
        if (known === true) {
          unknown = 0;
          if (opts.repriceAfterMs !== undefined && Date.now() - started >= opts.repriceAfterMs) return { state: 'stale' };
        } else if (known === false && ++unknown >= LOST_AFTER_POLLS) {
          return { state: 'lost', nonceUsed: (await this.minedNonce(tx.sender)) > tx.nonce };
        }
      }
      if (Date.now() > deadline) throw new Error(`anchor transaction ${tx.hash} not confirmed within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, this.provider.pollingInterval));
    }
  }

  /** The receipt of the first of `hashes` that has one (an error counts as none). */
  private async receiptOf(hashes: readonly string[]): Promise<TransactionReceipt | null> {
    for (const h of hashes) {
      const r = await this.provider.getTransactionReceipt(h).catch(() => null);
      if (r) return r;
    }
    return null;
  }

  /** Whether the node knows any of `hashes`; undefined when it could not be asked. */
  private async knowsAny(hashes: readonly string[]): Promise<boolean | undefined> {
    let answered = false;
    for (const h of hashes) {
      const t = await this.provider.getTransaction(h).catch(() => undefined);
      if (t) return true;
      if (t === null) answered = true;
    }
    return answered ? false : undefined;
  }

  /**
   * What the node asks of a transaction now: the base fee of the next block (the last of
   * `eth_feeHistory`'s, which every EIP-1559 node gives) and the priority fee it suggests
   * (`eth_maxPriorityFeePerGas`, 1 gwei when it has none, as ethers assumes); on a chain without
   * EIP-1559, its gas price.
   */
  private async ask(): Promise<{ nextBaseFee: bigint; tip: bigint } | { gasPrice: bigint }> {
    const history = await this.provider.send('eth_feeHistory', ['0x1', 'latest', []]).catch(() => null);
    const next = (history as { baseFeePerGas?: string[] } | null)?.baseFeePerGas?.at(-1);
    if (next !== undefined && BigInt(next) > 0n) {
      const tip = await this.provider.send('eth_maxPriorityFeePerGas', []).then(
        (v: string) => BigInt(v),
        () => DEFAULT_TIP,
      );
      return { nextBaseFee: BigInt(next), tip };
    }
    return { gasPrice: BigInt(await this.provider.send('eth_gasPrice', [])) };
  }

  /**
   * A replacement of `tx` (same nonce, same call) when the node asks more than `tx` offers: its
   * max fee below the next block's base fee (it cannot be mined now) or its priority fee below the
   * one the node suggests; on a legacy chain its gas price below the node's. The replacement offers
   * what the node asks (twice the next base fee plus the priority fee, as ethers prices a new
   * transaction) and at least REPLACEMENT_BUMP_PERCENT more than `tx` on each fee, so the node
   * takes it in place of `tx`. Undefined when `tx` offers what the node asks: it waits for another
   * reason, and higher fees would not help.
   */
  async reprice(tx: SignedAnchor): Promise<SignedAnchor | undefined> {
    const old = Transaction.from(tx.raw);
    const ask = await this.ask();
    const request: TransactionRequest = {
      type: old.type,
      chainId: old.chainId,
      nonce: old.nonce,
      to: old.to,
      data: old.data,
      value: old.value,
      gasLimit: old.gasLimit,
      accessList: old.type === 0 ? undefined : old.accessList,
    };
    if (old.type === 2 && old.maxFeePerGas !== null && old.maxPriorityFeePerGas !== null) {
      const { nextBaseFee, tip } = 'nextBaseFee' in ask ? ask : { nextBaseFee: ask.gasPrice, tip: 0n };
      if (old.maxFeePerGas >= nextBaseFee && old.maxPriorityFeePerGas >= tip) return undefined;
      request.maxPriorityFeePerGas = maxOf(tip, bumped(old.maxPriorityFeePerGas));
      request.maxFeePerGas = maxOf(2n * nextBaseFee + request.maxPriorityFeePerGas, bumped(old.maxFeePerGas));
    } else {
      const price = 'gasPrice' in ask ? ask.gasPrice : ask.nextBaseFee + ask.tip;
      if (old.gasPrice === null || old.gasPrice >= price) return undefined;
      request.gasPrice = maxOf(price, bumped(old.gasPrice));
    }
    const raw = await this.signer.signTransaction(request);
    const signed = Transaction.from(raw);
    return { hash: signed.hash!, nonce: signed.nonce, sender: tx.sender, raw };
  }

  private eventOf(receipt: TransactionReceipt): AnchoredEvent {
    if (receipt.status !== 1) throw new AnchorRefused(`the contract refused the anchor in transaction ${receipt.hash}`);
    const log = receipt.logs.find((l) => l.address.toLowerCase() === this.address && l.topics[0] === ANCHORED_EVENT_TOPIC);
    if (!log) throw new Error(`anchor transaction ${receipt.hash} emitted no Anchored event`);
    return { ...decode(log), gasUsed: receipt.gasUsed };
  }

  /**
   * Signs, sends and waits for one anchor (the worker does these steps itself, writing the
   * transaction down between signing and sending). Throws AnchorRefused when the contract refuses
   * the range, and an error when the node loses the transaction.
   */
  async anchor(range: AnchorRange, confirmations: number, timeoutMs: number, signal?: AbortSignal): Promise<AnchoredEvent> {
    const signed = await this.sign(range);
    await this.send(signed);
    const r = await this.wait(signed, confirmations, timeoutMs, signal);
    // Without `repriceAfterMs` a wait never ends stale.
    if (r.state !== 'confirmed') throw new Error(`anchor transaction ${signed.hash} was lost by the node`);
    return r.event;
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
