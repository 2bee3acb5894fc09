/**
 * The anchoring worker: every CHAIN_ANCHOR_INTERVAL it anchors the blocks sealed since the last
 * anchor as one range. The contract is the truth of how far anchoring got: each tick reads it, and
 * ranges it holds that this database did not record (a crash between sending and recording) are
 * found by their `Anchored` event and recorded after checking them against the ledger. A range the
 * contract refuses (another transaction anchored it first) is nothing lost: the next tick reads
 * the contract again. Nothing is ever anchored twice or skipped because the contract accepts only
 * the block after the last one it holds.
 *
 * The transaction in flight is written down before it is sent: the next anchorer (after a restart,
 * or another instance taking over) waits for it instead of sending the range again behind it. When
 * the EVM node no longer knows it (restarted, mempool dropped) it is sent again as it is (same
 * nonce, same hash) while its nonce is free, or the range is anchored anew with a new nonce when
 * another transaction took that one. When the node keeps it unmined for an interval while asking
 * higher fees than it offers (the chain's fees rose), it is replaced: the same nonce and call at the
 * fees asked now, at least the node's least bump above its own.
 */
import type { Clock } from '@kit/shared/clock';
import type { Logger } from 'pino';
import { anchorRoot, type AnchorLeafRule } from '@kit/shared';
import { startLoop, type Loop } from '../../jobs/loop';
import type { AnchorStore } from './anchor-store';
import type { AnchorLock } from './anchor-lock';
import type { AnchorChain, AnchorWait, SignedAnchor } from './anchor-evm';
import { AnchorRefused, type AnchoredEvent } from './anchored';

/** Most blocks in one anchor (a proof's audit path is built from the range's block hashes). */
export const MAX_ANCHOR_BLOCKS = 10_000;
/** How long one anchor transaction may take to be mined and confirmed before the tick gives up (the next tick reads the contract again). */
export const ANCHOR_WAIT_MS = 10 * 60_000;

export type AnchorFailure = 'rpc' | 'refused' | 'mismatch';
/** How a lost anchor transaction was sent again: itself (its nonce was free), or the range anew with a new nonce. */
export type AnchorResend = 'same' | 'new';
/** The leaf rule of the anchors this worker makes (docs/chain.md, "What is anchored"). */
export const ANCHOR_LEAF_RULE: AnchorLeafRule = 'rfc6962';

/** What the worker reports (the metrics). */
export interface AnchorObserver {
  progress(p: { lastAnchored: number; latest: number; oldestUnanchoredTime?: number }): void;
  failure(reason: AnchorFailure): void;
  anchored(blocks: number): void;
  resent(nonce: AnchorResend): void;
  /** A pending transaction replaced by one of the same nonce at higher fees. */
  repriced(): void;
}

export interface AnchorSettings {
  contract: string;
  confirmations: number;
  /** Time limit of one anchor's confirmation wait. */
  waitMs?: number;
  maxBlocks?: number;
  /** How long a transaction may wait unmined before it is re-priced (when the node asks more than it offers); never when absent. */
  repriceAfterMs?: number;
}

export type TickResult =
  { state: 'standby' | 'idle' } | { state: 'anchored'; event: AnchoredEvent; more: boolean } | { state: 'refused' | 'mismatch'; detail: string };

export class Anchorer {
  private chain?: AnchorChain;
  /** Ends a confirmation wait when the service stops. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: AnchorStore,
    private readonly lock: AnchorLock,
    private readonly connect: () => Promise<AnchorChain>,
    private readonly settings: AnchorSettings,
    private readonly observer: AnchorObserver,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  private get contract(): string {
    return this.settings.contract.toLowerCase();
  }

  /** One round: resume from the contract, record what it holds, anchor what is new. */
  async tick(): Promise<TickResult> {
    if (!(await this.lock.hold())) {
      await this.report();
      return { state: 'standby' };
    }
    try {
      const r = await this.anchorNext();
      if (r.state === 'mismatch') await this.report();
      return r;
    } catch (err) {
      // Stopping while a transaction waits: the next start finds it on the chain.
      if (this.stopping.signal.aborted) return { state: 'idle' };
      // The lag keeps growing in the metrics while anchors fail.
      await this.report().catch(() => undefined);
      if (err instanceof AnchorRefused) {
        this.observer.failure('refused');
        this.log.warn({ err: err.message }, 'anchor refused by the contract; resuming from what it holds');
        return { state: 'refused', detail: err.message };
      }
      this.observer.failure('rpc');
      // A failed connection is made again next time (the node may have been restarted elsewhere).
      this.chain?.destroy();
      this.chain = undefined;
      throw err;
    }
  }

  /** `replacing`: the lost transaction whose nonce another took (this round anchors its range anew). */
  private async anchorNext(replacing?: SignedAnchor): Promise<TickResult> {
    this.chain ??= await this.connect();
    const chain = this.chain;
    const held = await chain.lastToBlock();
    let last = await this.store.last(this.contract);
    if ((last?.to_block ?? 0) > held) {
      // The chain no longer holds what was recorded (a reorganisation deeper than the confirmations).
      const n = await this.store.forgetAfter(this.contract, held);
      this.log.error({ held, recorded: last?.to_block, forgotten: n }, 'the anchor contract holds fewer blocks than recorded; anchoring them again');
      last = await this.store.last(this.contract);
    }
    while ((last?.to_block ?? 0) < held) {
      const from = (last?.to_block ?? 0) + 1;
      const event = await chain.findAnchored(from, last?.evm_block);
      if (!event) throw new Error(`the contract holds blocks up to ${held} but no Anchored event starts at block ${from}`);
      // Found, but not final enough yet to show in proofs: a later round records it (nothing is sent meanwhile).
      if ((await chain.head()) - event.evmBlock + 1 < this.settings.confirmations) {
        await this.report(last?.to_block ?? 0);
        return { state: 'idle' };
      }
      const check = await this.checkAgainstLedger(event);
      if ('problem' in check) {
        this.observer.failure('mismatch');
        this.log.error(
          { fromBlock: event.fromBlock, toBlock: event.toBlock, txHash: event.txHash, problem: check.problem },
          'an anchored range differs from this ledger',
        );
        return { state: 'mismatch', detail: check.problem };
      }
      await this.record(event, chain.chainId, check.rule);
      this.log.info({ fromBlock: event.fromBlock, toBlock: event.toBlock, txHash: event.txHash }, 'recorded an anchor found on the chain');
      last = await this.store.last(this.contract);
    }

    const anchoredTo = last?.to_block ?? 0;
    let pending = await this.store.pending(this.contract);
    if (pending && (pending.from_block !== anchoredTo + 1 || pending.sender !== chain.sender)) {
      // Recorded already (or another key's, or a range the contract has moved past): nothing to wait for.
      await this.store.clearPending(this.contract);
      pending = undefined;
    }
    let tx: SignedAnchor;
    let range: { fromBlock: number; toBlock: number };
    let more = false;
    if (pending) {
      tx = { hash: pending.tx_hash, nonce: pending.nonce, sender: pending.sender, raw: pending.raw_tx };
      range = { fromBlock: pending.from_block, toBlock: pending.to_block };
      this.log.info({ ...range, txHash: tx.hash, nonce: tx.nonce }, 'waiting for the anchor transaction sent before');
    } else {
      const { latest } = await this.store.progress(anchoredTo);
      if (latest <= anchoredTo) {
        await this.report(anchoredTo);
        return { state: 'idle' };
      }
      const toBlock = Math.min(latest, anchoredTo + (this.settings.maxBlocks ?? MAX_ANCHOR_BLOCKS));
      more = toBlock < latest;
      const hashes = (await this.store.blockHashes(anchoredTo + 1, toBlock)).map((b) => b.hash);
      range = { fromBlock: anchoredTo + 1, toBlock };
      tx = await chain.sign({ ...range, lastBlockHash: hashes[hashes.length - 1], root: anchorRoot(hashes, ANCHOR_LEAF_RULE) });
      // Written down before it leaves: whoever anchors next waits for it rather than sending the range again.
      await this.store.setPending({
        contract: this.contract,
        from_block: range.fromBlock,
        to_block: range.toBlock,
        sender: tx.sender,
        nonce: tx.nonce,
        tx_hash: tx.hash,
        raw_tx: tx.raw,
        sent_at: this.clock.now(),
      });
      if (replacing) {
        this.observer.resent('new');
        this.log.warn(
          { ...range, txHash: tx.hash, nonce: tx.nonce, lostTxHash: replacing.hash, lostNonce: replacing.nonce },
          'the lost anchor transaction cannot be mined any more (another transaction took its nonce): anchoring the range again with a new nonce',
        );
      }
      await chain.send(tx);
    }
    // The lag shows the blocks waiting while this transaction does.
    await this.report(anchoredTo);
    const outcome = await this.waitFor(chain, tx, range).catch(async (err: unknown) => {
      // A failed receipt ends this transaction; the next round reads the contract again.
      if (err instanceof AnchorRefused) await this.store.clearPending(this.contract);
      throw err;
    });
    if (outcome.state === 'lost') {
      // Its nonce was taken: it can never be mined. Read the contract again (the range may be held by
      // a copy of it) and anchor what is still missing with a new nonce.
      await this.store.clearPending(this.contract);
      return this.anchorNext(tx);
    }
    const { event } = outcome;
    await this.record(event, chain.chainId, ANCHOR_LEAF_RULE);
    await this.store.clearPending(this.contract);
    this.observer.anchored(event.toBlock - event.fromBlock + 1);
    this.log.info({ fromBlock: event.fromBlock, toBlock: event.toBlock, txHash: event.txHash, gasUsed: String(event.gasUsed) }, 'ledger blocks anchored');
    await this.report(event.toBlock);
    return { state: 'anchored', event, more };
  }

  /**
   * Waits for `tx`. While the node loses it and its nonce is still free, sends it again as it is
   * (same nonce, same hash: if a copy of it is mined after all, the two are one transaction), unless
   * the node now asks more than it offers (a node drops a transaction the chain's fees have left
   * behind, and refuses it as it is): then, as when the node keeps it unmined for an interval below
   * what it asks, replaces it with one of the same nonce at higher fees, written down first like any
   * anchor; any version may then be the one mined. Ends lost only when another transaction took the nonce.
   */
  private async waitFor(chain: AnchorChain, tx: SignedAnchor, range: { fromBlock: number; toBlock: number }): Promise<Exclude<AnchorWait, { state: 'stale' }>> {
    const limit = this.settings.waitMs ?? ANCHOR_WAIT_MS;
    const earlier: string[] = [];
    let deadline = performance.now() + limit;
    for (;;) {
      const r = await chain.wait(tx, this.settings.confirmations, Math.max(0, deadline - performance.now()), this.stopping.signal, {
        earlier,
        repriceAfterMs: this.settings.repriceAfterMs,
      });
      if (r.state === 'confirmed' || (r.state === 'lost' && r.nonceUsed)) return r;
      // The node down right now: no re-pricing this time (a lost transaction is then sent again as it is).
      const replacement = await chain
        .reprice(tx)
        .catch((err: Error) => void this.log.warn({ txHash: tx.hash, err: err.message }, 'reading the fees the EVM node asks failed'));
      if (replacement) {
        await this.store.setPending({
          contract: this.contract,
          from_block: range.fromBlock,
          to_block: range.toBlock,
          sender: replacement.sender,
          nonce: replacement.nonce,
          tx_hash: replacement.hash,
          raw_tx: replacement.raw,
          sent_at: this.clock.now(),
        });
        this.observer.repriced();
        this.log.warn(
          { ...range, txHash: replacement.hash, nonce: replacement.nonce, replacedTxHash: tx.hash },
          r.state === 'stale'
            ? 'the anchor transaction waits unmined below the fees the EVM node asks: replacing it with the same nonce at higher fees'
            : 'the EVM node no longer knows the anchor transaction and asks higher fees than it offers: replacing it with the same nonce at higher fees',
        );
        earlier.unshift(tx.hash);
        tx = replacement;
      } else if (r.state === 'stale') {
        // It offers what the node asks: it waits for another reason, and higher fees would not help.
        continue;
      } else {
        this.observer.resent('same');
        this.log.warn(
          { ...range, txHash: tx.hash, nonce: tx.nonce },
          'the EVM node no longer knows the anchor transaction: sending it again with the same nonce',
        );
      }
      if (r.state === 'lost') deadline = performance.now() + limit;
      // The node may have it again already, want more, or be down right now: the next polls tell.
      await chain.send(tx).catch((err: Error) => this.log.warn({ txHash: tx.hash, err: err.message }, 'sending the anchor transaction failed'));
    }
  }

  /**
   * The leaf rule with which an anchored range found on the chain is this ledger's, or why it is not.
   * The rule of today first; `raw` for a range a version before it sent and did not record.
   */
  private async checkAgainstLedger(e: AnchoredEvent): Promise<{ rule: AnchorLeafRule } | { problem: string }> {
    const blocks = await this.store.blockHashes(e.fromBlock, e.toBlock);
    if (blocks.length !== e.toBlock - e.fromBlock + 1) return { problem: `the ledger lacks blocks of ${e.fromBlock}..${e.toBlock}` };
    if (blocks[blocks.length - 1].hash !== e.lastBlockHash) return { problem: `block ${e.toBlock} has another hash than the one anchored` };
    const hashes = blocks.map((b) => b.hash);
    const rule = ([ANCHOR_LEAF_RULE, 'raw'] as const).find((r) => anchorRoot(hashes, r) === e.root);
    return rule ? { rule } : { problem: `the block hashes of ${e.fromBlock}..${e.toBlock} do not give the anchored root` };
  }

  private record(e: AnchoredEvent, chainId: number, rule: AnchorLeafRule): Promise<void> {
    return this.store.record({
      contract: this.contract,
      from_block: e.fromBlock,
      to_block: e.toBlock,
      chain_id: chainId,
      last_block_hash: e.lastBlockHash,
      root: e.root,
      tx_hash: e.txHash,
      evm_block: e.evmBlock,
      anchored_at: this.clock.now(),
      leaf_rule: rule,
    });
  }

  /** Reports progress from the database (also on instances that are not the anchorer). */
  private async report(anchoredTo?: number): Promise<void> {
    const to = anchoredTo ?? (await this.store.last(this.contract))?.to_block ?? 0;
    const p = await this.store.progress(to);
    this.observer.progress({ lastAnchored: to, latest: p.latest, oldestUnanchoredTime: p.oldestUnanchoredTime });
  }

  /** Ends a wait in progress (the loop then finishes its round). */
  abort(): void {
    this.stopping.abort();
  }

  async stop(): Promise<void> {
    await this.lock.release();
    this.chain?.destroy();
    this.chain = undefined;
  }
}

export function startAnchorer(anchorer: Anchorer, intervalMs: number, log: Logger, clock: Clock): Loop {
  const loop = startLoop(
    'chain-anchorer',
    intervalMs,
    async () => {
      const r = await anchorer.tick();
      return r.state === 'anchored' && r.more;
    },
    log,
    clock,
  );
  return {
    poke: () => loop.poke(),
    settle: () => loop.settle(),
    async stop() {
      anchorer.abort();
      await loop.stop();
      await anchorer.stop();
    },
  };
}
