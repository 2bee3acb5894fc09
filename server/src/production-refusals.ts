/**
 * A production set-up that would start and break later is refused at start, naming the setting
 * (design 7.5). `loadConfig` adds these to the schema's own refusals, so the service and every
 * `kit` command stop alike, before anything is generated or opened.
 */
import { isLoopbackUrl, listensOnAllAddresses } from './listen-addresses';

export interface ProductionFacts {
  production: boolean;
  PUBLIC_URL?: string;
  HOST: string;
  PORT: number;
  BASE_PATH: string;
  DATABASE_URL?: string;
  KIT_MASTER_KEY?: string;
  CHAIN_NODE_KEY?: string;
}

/** `SETTING: why` for each setting production refuses; none outside production. */
export function productionRefusals(c: ProductionFacts): string[] {
  if (!c.production) return [];
  const out: string[] = [];
  const publicUrl = publicUrlRefusal(c);
  if (publicUrl) out.push(`PUBLIC_URL: ${publicUrl}`);
  // On PostgreSQL several instances share the database: a key each one generated into its own
  // DATA_DIR would seal what the others cannot open, and sign blocks the others' key did not.
  if (c.DATABASE_URL) {
    if (!c.KIT_MASTER_KEY)
      out.push(
        'KIT_MASTER_KEY: required in production on PostgreSQL (DATABASE_URL), the same on every instance (openssl rand -hex 32): a key each instance generated into its DATA_DIR would seal app secrets the others cannot open',
      );
    if (!c.CHAIN_NODE_KEY)
      out.push(
        'CHAIN_NODE_KEY: required in production on PostgreSQL (DATABASE_URL), the same on every instance (openssl rand -hex 32): a key each instance generated into its DATA_DIR would sign blocks under keys the ledger does not share',
      );
  }
  return out;
}

/**
 * The platforms send notifications only to HTTPS and the POS display and the console take logins
 * only over HTTPS, so the address the service gives out must be HTTPS; a loopback one is a trial
 * on one machine. Unset, that address is the listening one.
 */
function publicUrlRefusal(c: ProductionFacts): string | undefined {
  const host = listensOnAllAddresses(c.HOST) ? '127.0.0.1' : c.HOST.includes(':') ? `[${c.HOST}]` : c.HOST;
  const url = c.PUBLIC_URL ?? `http://${host}:${c.PORT}${c.BASE_PATH}`;
  if (new URL(url).protocol === 'https:' || isLoopbackUrl(url)) return undefined;
  const why =
    'in production the payment platforms send notifications only to HTTPS and the POS display and the console refuse logins over plain HTTP; set the HTTPS address the service is reached at (a loopback http:// address is accepted, for a trial on one machine)';
  return c.PUBLIC_URL ? `must be an https:// address, not ${url}: ${why}` : `unset, so the service would give out ${url}: ${why}`;
}
