/** SQL of the trusted-points state: point types, balances, spent deduction-code uuids. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Executor } from './ledger-store';
import { PointsState, accountKey, typeKey, type Account } from './points-rules';

const CHUNK = 200;

export class PointsStore {
  constructor(readonly db: Kysely<Database>) {}

  findType(tokenAppId: string, tokenId: string, on: Executor = this.db) {
    return on.selectFrom('point_types').selectAll().where('token_app_id', '=', tokenAppId).where('token_id', '=', tokenId).executeTakeFirst();
  }

  async balance(a: Account): Promise<number> {
    const row = await this.db
      .selectFrom('point_balances')
      .select('balance')
      .where('token_app_id', '=', a.tokenAppId)
      .where('token_id', '=', a.tokenId)
      .where('user_app_id', '=', a.userAppId)
      .where('user_id', '=', a.userId)
      .executeTakeFirst();
    return row?.balance ?? 0;
  }

  async isSpent(uuid: string): Promise<boolean> {
    return !!(await this.db.selectFrom('point_spent_codes').select('uuid').where('uuid', '=', uuid).executeTakeFirst());
  }

  /** Loads what a batch of items touches into a fresh state. */
  async load(on: Executor, want: { types: Array<[string, string]>; accounts: Account[]; uuids: string[] }): Promise<PointsState> {
    const state = new PointsState();
    const types = dedupe(want.types, ([a, t]) => typeKey(a, t));
    for (let i = 0; i < types.length; i += CHUNK) {
      const part = types.slice(i, i + CHUNK);
      const rows = await on
        .selectFrom('point_types')
        .selectAll()
        .where((eb) => eb.or(part.map(([a, t]) => eb.and([eb('token_app_id', '=', a), eb('token_id', '=', t)]))))
        .execute();
      for (const r of rows) state.addType(r.token_app_id, r.token_id, r.name, true);
    }
    const accounts = dedupe(want.accounts, accountKey);
    for (let i = 0; i < accounts.length; i += CHUNK) {
      const part = accounts.slice(i, i + CHUNK);
      const rows = await on
        .selectFrom('point_balances')
        .selectAll()
        .where((eb) =>
          eb.or(
            part.map((a) =>
              eb.and([
                eb('token_app_id', '=', a.tokenAppId),
                eb('token_id', '=', a.tokenId),
                eb('user_app_id', '=', a.userAppId),
                eb('user_id', '=', a.userId),
              ]),
            ),
          ),
        )
        .execute();
      for (const r of rows) state.setBalance({ tokenAppId: r.token_app_id, tokenId: r.token_id, userAppId: r.user_app_id, userId: r.user_id }, r.balance, true);
    }
    const uuids = [...new Set(want.uuids)];
    for (let i = 0; i < uuids.length; i += CHUNK) {
      const rows = await on
        .selectFrom('point_spent_codes')
        .select(['uuid', 'item_seq'])
        .where('uuid', 'in', uuids.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) state.spend(r.uuid, r.item_seq, true);
    }
    return state;
  }

  /** Writes what the rules changed. */
  async save(on: Executor, state: PointsState, now: number): Promise<void> {
    for (const k of state.dirtyTypes) {
      const [tokenAppId, tokenId] = JSON.parse(k) as [string, string];
      await on
        .insertInto('point_types')
        .values({ token_app_id: tokenAppId, token_id: tokenId, name: state.types.get(k)!, created_at: now })
        .execute();
    }
    for (const k of state.dirtyBalances) {
      const { account: a, units } = state.balances.get(k)!;
      await on
        .insertInto('point_balances')
        .values({ token_app_id: a.tokenAppId, token_id: a.tokenId, user_app_id: a.userAppId, user_id: a.userId, balance: units, updated_at: now })
        .onConflict((oc) => oc.columns(['token_app_id', 'token_id', 'user_app_id', 'user_id']).doUpdateSet({ balance: units, updated_at: now }))
        .execute();
    }
    for (const uuid of state.newSpent) {
      await on
        .insertInto('point_spent_codes')
        .values({ uuid, item_seq: state.spent.get(uuid)!, spent_at: now })
        .execute();
    }
  }

  /** Whole tables, for `chain verify` to compare with a replay. */
  allTypes(on: Executor = this.db) {
    return on.selectFrom('point_types').select(['token_app_id', 'token_id']).execute();
  }
  allBalances(on: Executor = this.db) {
    return on.selectFrom('point_balances').select(['token_app_id', 'token_id', 'user_app_id', 'user_id', 'balance']).execute();
  }
  allSpent(on: Executor = this.db) {
    return on.selectFrom('point_spent_codes').select(['uuid']).execute();
  }
}

function dedupe<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const it of items) seen.set(key(it), it);
  return [...seen.values()];
}
