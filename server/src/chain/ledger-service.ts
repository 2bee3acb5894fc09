/**
 * The chain ledger's front door: accepting uploads (4.14), looking them up (4.15) and proving
 * inclusion. Acceptance validates every item against the action catalogue and the signer's rights,
 * then writes the whole call in one transaction before answering `pending`; a call with one bad
 * item changes nothing.
 */
import type { Clock } from '@kit/shared/clock';
import {
  CHAIN_VERSION,
  KitError,
  MAX_ITEM_BYTES,
  MAX_LOOKUP_ITEMS,
  MAX_UPLOAD_ITEMS,
  ACTION_TYPES,
  auditPath,
  canonicalJson,
  deriveDonationKeys,
  describeZodError,
  encryptDonation,
  lookupItemSchema,
  onChainId,
  txHash,
  txLeaf,
  uploadItemSchema,
  type ActionType,
  type LookupItem,
  type LookupResult,
  type ProofResponse,
} from '@kit/shared';
import { WriteBatcher } from './write-batcher';
import { ENCRYPTED_TYPES, acceptedItem, actionSchemas, isActionType, type ActionItem } from './actions';
import type { LedgerStore, NewItem } from './ledger-store';
import type { PointsStore } from './points-store';
import type { NodeKey } from './node-key';
import type { CodeReader } from './points-rules';
import type { ChainItemStatus } from './tables';
import type { AnchorProofs } from './anchor/anchor-proofs';

export interface SecretSource {
  secretOf(appId: string): Promise<string | null>;
}

interface Prepared extends NewItem {
  index: number;
  item: ActionItem;
}

const keyOf = (type: string, localId: string) => `${type}\u0000${localId}`;

/** What a lookup answers for a row (or its absence). */
export function lookupResult(row: { status: ChainItemStatus; block_num: number | null; tx_hash: string } | undefined, id: string): LookupResult {
  if (!row || row.status === 'failed') return {};
  if (row.status === 'pending') return { id: '' };
  return { id, chainTrxId: row.tx_hash, chainBlockNum: String(row.block_num) };
}

export class LedgerService {
  private readonly batcher: WriteBatcher;

  constructor(
    private readonly store: LedgerStore,
    private readonly points: PointsStore,
    private readonly secrets: SecretSource,
    private readonly codes: CodeReader,
    private readonly nodeKey: NodeKey,
    private readonly clock: Clock,
    private readonly anchors?: AnchorProofs,
  ) {
    this.batcher = new WriteBatcher(store.db);
  }

  /** 4.14: validates and queues a call's items; throws KitError (changing nothing) if any is refused. */
  async accept(appId: string, items: unknown[], opts: { where?: (index: number) => string } = {}): Promise<void> {
    if (items.length > MAX_UPLOAD_ITEMS) throw new KitError('too_many_items', `at most ${MAX_UPLOAD_ITEMS} items per upload, got ${items.length}`);
    const now = this.clock.now();
    const prepared: Prepared[] = [];
    const inCall = new Map<string, Prepared>();
    let donationKeys: ReturnType<typeof deriveDonationKeys> | undefined;
    const checks = new AcceptanceChecks(appId, this.store, this.points, inCall);

    for (let i = 0; i < items.length; i++) {
      const where = opts.where?.(i) ?? `items[${i}]`;
      const envelope = uploadItemSchema.safeParse(items[i]);
      if (!envelope.success) throw new KitError('invalid_request', `${where}: ${describeZodError(envelope.error)}`);
      const { type, args: given } = envelope.data;
      // The canonical text is both the size measured and (for plain types) the content stored.
      let plain: string;
      try {
        plain = canonicalJson({ type, args: given });
      } catch (e) {
        throw new KitError('invalid_action_args', `${where}.args: ${(e as Error).message}`);
      }
      const size = Buffer.byteLength(plain);
      if (size > MAX_ITEM_BYTES) throw new KitError('item_too_large', `${where} is ${size} bytes; at most ${MAX_ITEM_BYTES} bytes (50 KB) per item`);
      if (!isActionType(type)) throw new KitError('unknown_action_type', `${where}.type "${type.slice(0, 64)}" is not one of ${ACTION_TYPES.join(', ')}`);
      const parsed = actionSchemas[type].safeParse(given);
      if (!parsed.success) throw new KitError('invalid_action_args', `${where}.args: ${describeZodError(parsed.error)}`);
      // Schemas only check (no defaults, no transforms), so the content is the caller's data as given.
      const action = acceptedItem(type, given);
      const { args } = action;

      await checks.check(where, action, this.codes);

      let content = plain;
      if (ENCRYPTED_TYPES.has(type)) {
        if (!donationKeys) {
          const secret = await this.secrets.secretOf(appId);
          if (!secret) throw new KitError('unknown_app', `app "${appId}" is unknown or disabled`);
          donationKeys = deriveDonationKeys(secret);
        }
        content = canonicalJson({ type, sealed: encryptDonation(donationKeys, canonicalJson(args)) });
      }
      const item: Prepared = {
        index: i,
        item: action,
        app_id: appId,
        type,
        local_id: args.id,
        chain_id: onChainId(content),
        tx_hash: txHash(appId, content),
        content,
        created_at: now,
      };
      const key = keyOf(type, args.id);
      const twin = inCall.get(key);
      if (twin) {
        if (twin.chain_id !== item.chain_id)
          throw new KitError('duplicate_item_id', `${where}: ${type} id "${args.id}" already appears with other content at items[${twin.index}]`);
        continue;
      }
      inCall.set(key, item);
      prepared.push(item);
    }

    await this.batcher.run((trx) => this.write(trx, appId, prepared));
  }

  private async write(trx: Parameters<LedgerStore['insertNew']>[0], appId: string, prepared: Prepared[]): Promise<void> {
    const inserted = await this.store.insertNew(trx, prepared.map(toRow));
    const rest = prepared.filter((p) => !inserted.has(keyOf(p.type, p.local_id)));
    if (rest.length === 0) return;
    const existing = await this.store.findByKeys(trx, appId, rest);
    const resubmit: Prepared[] = [];
    for (const p of rest) {
      const row = existing.get(keyOf(p.type, p.local_id));
      if (!row) throw new Error(`chain item ${p.type}/${p.local_id} neither inserted nor found`);
      if (row.status === 'failed') resubmit.push(p);
      else if (row.chain_id !== p.chain_id) {
        throw new KitError(
          'id_conflict',
          `items[${p.index}]: ${p.type} id "${p.local_id}" was already uploaded with other content (the id of the same data never changes)`,
        );
      }
      // Same content again: already queued or confirmed, nothing to do.
    }
    if (resubmit.length === 0) return;
    await this.store.deleteFailed(
      trx,
      resubmit.map((p) => existing.get(keyOf(p.type, p.local_id))!.seq),
    );
    const again = await this.store.insertNew(trx, resubmit.map(toRow));
    if (again.size !== resubmit.length) throw Object.assign(new Error('resubmission raced'), { code: '23505' });
  }

  /** 4.15: one answer per request item, in order. Items of other apps are unknown (`{}`). */
  async lookup(appId: string, items: unknown[]): Promise<LookupResult[]> {
    if (items.length > MAX_LOOKUP_ITEMS) throw new KitError('too_many_items', `at most ${MAX_LOOKUP_ITEMS} items per lookup, got ${items.length}`);
    const queries: LookupItem[] = items.map((raw, i) => {
      const parsed = lookupItemSchema.safeParse(raw);
      if (!parsed.success) throw new KitError('invalid_request', `items[${i}]: ${describeZodError(parsed.error)}`);
      return parsed.data;
    });
    const groups = new Map<string, { type: string; queryType: LookupItem['queryType']; ids: Set<string> }>();
    for (const q of queries) {
      const g = `${q.queryType}\u0000${q.type}`;
      if (!groups.has(g)) groups.set(g, { type: q.type, queryType: q.queryType, ids: new Set() });
      groups.get(g)!.ids.add(q.id);
    }
    const found = new Map<string, LookupResult>();
    await Promise.all(
      [...groups.values()].map(async (g) => {
        const ids = [...g.ids];
        if (g.queryType === 'i2c') {
          for (const row of await this.store.byLocalIds(appId, g.type, ids))
            found.set(`i2c\u0000${g.type}\u0000${row.local_id}`, lookupResult(row, row.chain_id));
        } else {
          const rows = await this.store.byChainIds(ids, { appId, type: g.type });
          for (const row of rows) {
            const k = `c2i\u0000${g.type}\u0000${row.chain_id}`;
            // A resubmitted item may have a failed twin with the same content; the live one wins.
            if (!found.has(k) || row.status !== 'failed') found.set(k, lookupResult(row, row.local_id));
          }
        }
      }),
    );
    return queries.map((q) => found.get(`${q.queryType}\u0000${q.type}\u0000${q.id}`) ?? {});
  }

  /** States of an app's items of one type by local id (the donation lookup 4.11). */
  async states(appId: string, type: ActionType, localIds: string[]) {
    const rows = await this.store.byLocalIds(appId, type, localIds);
    return new Map(rows.map((r) => [r.local_id, r]));
  }

  /** The inclusion proof of a confirmed item of this app, or `pending` while it is queued. */
  async proof(appId: string, chainId: string): Promise<ProofResponse | { version: typeof CHAIN_VERSION; status: 'pending' }> {
    const rows = await this.store.byChainIds([chainId], { appId });
    const row = rows.find((r) => r.status === 'confirmed') ?? rows.find((r) => r.status === 'pending');
    if (!row) throw new KitError('not_found', `no item of app ${appId} has the on-chain id ${chainId}`);
    if (row.status === 'pending') return { version: CHAIN_VERSION, status: 'pending' };
    const number = row.block_num!;
    const block = await this.store.block(this.store.db, number);
    if (!block) throw new Error(`block ${number} of confirmed item ${row.seq} is missing`);
    const leaves = await this.store.blockLeaves(this.store.db, block);
    const index = leaves.findIndex((l) => l.seq === row.seq);
    if (index < 0) throw new Error(`confirmed item ${row.seq} is missing from block ${number}`);
    const anchor = await this.anchors?.forBlock(number);
    return {
      version: CHAIN_VERSION,
      status: 'success',
      id: row.chain_id,
      chainTrxId: row.tx_hash,
      chainBlockNum: String(number),
      content: row.content,
      tx: txLeaf(row.app_id, row.content),
      leafIndex: index,
      treeSize: leaves.length,
      auditPath: auditPath(
        leaves.map((l) => Buffer.from(l.tx_hash, 'hex')),
        index,
      ).map((h) => h.toString('hex')),
      block: { number: block.number, prevHash: block.prev_hash, merkleRoot: block.merkle_root, time: block.time, txCount: block.tx_count },
      blockHash: block.hash,
      signature: block.signature,
      nodePublicKey: block.signer,
      ...(anchor ? { anchor } : {}),
    };
  }

  get publicKey(): string {
    return this.nodeKey.publicKeyHex;
  }
}

const toRow = (p: Prepared): NewItem => ({
  app_id: p.app_id,
  type: p.type,
  local_id: p.local_id,
  chain_id: p.chain_id,
  tx_hash: p.tx_hash,
  content: p.content,
  created_at: p.created_at,
});

/**
 * Rules checked when an item is accepted: who may upload it and whether what it refers to exists
 * (here, earlier in the same call, or queued). State rules (balances, codes) wait for sealing.
 */
class AcceptanceChecks {
  private readonly typeCache = new Map<string, boolean>();

  constructor(
    private readonly appId: string,
    private readonly store: LedgerStore,
    private readonly points: PointsStore,
    private readonly inCall: Map<string, Prepared>,
  ) {}

  async check(where: string, action: ActionItem, codes: CodeReader): Promise<void> {
    switch (action.type) {
      case 'points.issue': {
        const { args } = action;
        if (args.tokenAppId !== undefined && args.tokenAppId !== this.appId) {
          throw new KitError('not_token_issuer', `${where}: only app ${args.tokenAppId} may issue its points`);
        }
        return this.requireType(where, this.appId, args.tokenId);
      }
      case 'points.transfer': {
        const { args } = action;
        if (args.from.userAppId !== this.appId) {
          throw new KitError('not_user_app', `${where}: only the sender's app ${args.from.userAppId} may transfer its user's points`);
        }
        return this.requireType(where, args.tokenAppId ?? this.appId, args.tokenId);
      }
      case 'chainPay':
        if (!codes.read(action.args.code)) throw new KitError('invalid_action_args', `${where}.args.code: not an authentic deduction code`);
        return;
      case 'donation.donate':
        return this.requireProject(where, action.args.projectId_biz, action.args.projectId_bc);
      default:
        return;
    }
  }

  private async requireType(where: string, tokenAppId: string, tokenId: string): Promise<void> {
    const k = JSON.stringify([tokenAppId, tokenId]);
    let known = this.typeCache.get(k);
    if (known === undefined) {
      known = !!(await this.points.findType(tokenAppId, tokenId));
      if (!known) {
        const queued = await this.store.pendingContents(tokenAppId, 'points.create');
        known = queued.some((r) => JSON.parse(r.content).args?.tokenId === tokenId);
      }
      if (known) this.typeCache.set(k, true);
    }
    if (!known && tokenAppId === this.appId) {
      known = [...this.inCall.values()].some((p) => p.item.type === 'points.create' && p.item.args.tokenId === tokenId);
    }
    if (!known) throw new KitError('point_type_not_found', `${where}: point type "${tokenId}" of app ${tokenAppId} does not exist`);
  }

  private async requireProject(where: string, projectId: string, projectChainId: string | undefined): Promise<void> {
    let chainId = this.inCall.get(keyOf('donation.project', projectId))?.chain_id;
    if (!chainId) {
      const row = (await this.store.findByKeys(this.store.db, this.appId, [{ type: 'donation.project', local_id: projectId }])).get(
        keyOf('donation.project', projectId),
      );
      if (row && row.status !== 'failed') chainId = row.chain_id;
    }
    if (!chainId) throw new KitError('project_not_found', `${where}: donation project "${projectId}" does not exist (upload it first)`);
    if (projectChainId !== undefined && projectChainId !== chainId) {
      throw new KitError('invalid_action_args', `${where}.args.projectId_bc: is not the on-chain id of project "${projectId}"`);
    }
  }
}
