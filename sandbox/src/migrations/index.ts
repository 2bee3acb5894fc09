/**
 * The sandbox's own migrations, applied only when SANDBOX_ENABLED (`runtime.ts`), recorded in
 * their own table (`kysely_migration_sandbox`) beside the service's: a database of a service without
 * the sandbox never gets its tables. Names sort in the order they run; a migration is written
 * once and never edited after it has shipped: add a new one instead.
 */
import type { MigrationSet } from '@kit/server/plugins/dev-plugin';
import { sandboxTables } from './0001_sandbox';
import { psCustomRelation } from './0002_ps_custom_relation';
import { mpTokens } from './0003_mp_tokens';

export const SANDBOX_MIGRATIONS: MigrationSet = {
  name: 'sandbox',
  table: 'kysely_migration_sandbox',
  migrations: (dialect) => ({
    '0001_sandbox': sandboxTables(dialect),
    '0002_ps_custom_relation': psCustomRelation(dialect),
    '0003_mp_tokens': mpTokens(dialect),
  }),
};
