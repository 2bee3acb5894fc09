import type { Kysely } from 'kysely';
import type { Database, AppsTable } from '../db/schema';

export class AppStore {
  constructor(private readonly db: Kysely<Database>) {}

  insert(row: AppsTable): Promise<unknown> {
    return this.db.insertInto('apps').values(row).execute();
  }

  find(appId: string): Promise<AppsTable | undefined> {
    return this.db.selectFrom('apps').selectAll().where('app_id', '=', appId).executeTakeFirst();
  }

  list(): Promise<Array<Pick<AppsTable, 'app_id' | 'name' | 'disabled' | 'created_at'>>> {
    return this.db.selectFrom('apps').select(['app_id', 'name', 'disabled', 'created_at']).orderBy('created_at').execute();
  }

  setDisabled(appId: string, disabled: boolean): Promise<unknown> {
    return this.db
      .updateTable('apps')
      .set({ disabled: disabled ? 1 : 0 })
      .where('app_id', '=', appId)
      .execute();
  }

  /** Records a signature; false when the same (app, signature) was already recorded. */
  async recordSignature(appId: string, sig: string, expiresAt: number): Promise<boolean> {
    const insert = this.db
      .insertInto('replay_guard')
      .values({ app_id: appId, sig, expires_at: expiresAt })
      .onConflict((oc) => oc.doNothing());
    const res = await insert.executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async forgetSignature(appId: string, sig: string): Promise<void> {
    await this.db.deleteFrom('replay_guard').where('app_id', '=', appId).where('sig', '=', sig).execute();
  }

  purgeSignatures(before: number): Promise<unknown> {
    return this.db.deleteFrom('replay_guard').where('expires_at', '<', before).execute();
  }
}
