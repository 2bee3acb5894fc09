/**
 * Migrations in order. Names sort in the order they run; each feature appends its own file here.
 * A migration is written once and never edited after it has shipped: add a new one instead.
 */
import type { Migration } from 'kysely';
import type { Dialect } from '../dialect';
import { core } from './0001_core';
import { payments } from './0002_payments';
import { chain } from './0003_chain';
import { jobs } from './0004_jobs';
import { profitSharing } from './0005_profit_sharing';

export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_core': core(dialect),
    '0002_payments': payments(dialect),
    '0003_chain': chain(dialect),
    '0004_jobs': jobs(dialect),
    '0005_profit_sharing': profitSharing(dialect),
  };
}
