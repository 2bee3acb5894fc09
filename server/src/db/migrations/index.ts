/**
 * Migrations in order. Names sort in the order they run; each feature appends its own file here.
 * A migration is written once and never edited after it has shipped: add a new one instead. (One
 * exception, made with care: the sandbox's tables left 0002 and 0005 for the sandbox's own set,
 * `sandbox/src/migrations/` of `@kit/sandbox`, which adopts them where those migrations created them; docs/architecture.md.)
 */
import type { Migration } from 'kysely';
import type { Dialect } from '../dialect';
import { core } from './0001_core';
import { payments } from './0002_payments';
import { chain } from './0003_chain';
import { jobs } from './0004_jobs';
import { profitSharing } from './0005_profit_sharing';
import { loginThrottle } from './0006_login_throttle';
import { chainAnchors } from './0007_chain_anchors';
import { paidVia } from './0008_paid_via';
import { reconciliation } from './0009_reconciliation';
import { receiverCustomRelation } from './0010_receiver_custom_relation';
import { chainAnchorLeafRule } from './0011_chain_anchor_leaf_rule';
import { chainAnchorPending } from './0012_chain_anchor_pending';
import { miniProgram } from './0013_mini_program';
import { duplicatePayments } from './0014_duplicate_payments';

/**
 * A set of migrations recorded in a table of its own: the service's (always applied) and the
 * sandbox's (`sandbox/src/migrations/`, given by its plug-in, only when SANDBOX_ENABLED).
 */
export interface MigrationSet {
  name: string;
  /** Where Kysely records which ran (its lock table is this name with `_lock`). */
  table: string;
  migrations(dialect: Dialect): Record<string, Migration>;
}

/** The service's own migrations, recorded in Kysely's default table. */
export const KIT_MIGRATIONS: MigrationSet = { name: 'kit', table: 'kysely_migration', migrations: (dialect) => migrations(dialect) };

export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_core': core(dialect),
    '0002_payments': payments(dialect),
    '0003_chain': chain(dialect),
    '0004_jobs': jobs(dialect),
    '0005_profit_sharing': profitSharing(dialect),
    '0006_login_throttle': loginThrottle(dialect),
    '0007_chain_anchors': chainAnchors(dialect),
    '0008_paid_via': paidVia(dialect),
    '0009_reconciliation': reconciliation(dialect),
    '0010_receiver_custom_relation': receiverCustomRelation(dialect),
    '0011_chain_anchor_leaf_rule': chainAnchorLeafRule(dialect),
    '0012_chain_anchor_pending': chainAnchorPending(dialect),
    '0013_mini_program': miniProgram(dialect),
    '0014_duplicate_payments': duplicatePayments(dialect),
  };
}
