/**
 * Starts a real service on a loopback port for API tests and gives typed clients for it.
 * Everything goes through real HTTP; nothing is mocked.
 */
import { KitClient } from '@kit/shared';
import { TestClock } from '@kit/shared/test-clock';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime';
import type { Backend } from './backends';
import { waitFor } from './wait';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema';
import type { SandboxDatabase, SandboxTables } from '@kit/sandbox';

export interface TestKit {
  runtime: Runtime;
  url: string;
  /** The service's clock (design 7.1): it flows with the machine's time until the test freezes or advances it. */
  clock: TestClock;
  /** Moves the clock forward (`'5m'`, ms) and waits until the background work that became due has run (`Runtime.settle`). */
  advance(by: number | string): Promise<void>;
  /** Waits until the background work due now has run. */
  settle(): Promise<void>;
  /** A fresh app with a client signing as it, on the service's clock. */
  newApp(): Promise<{ appId: string; appSecret: string; client: KitClient }>;
  close(): Promise<void>;
}

/** Quiet, loopback, fast timers; anything can be overridden per test. */
export const TEST_ENV: NodeJS.ProcessEnv = {
  NODE_ENV: 'test',
  // No settings file unless a test names one (a developer's `.env` must not reach the processes a test starts).
  KIT_ENV_FILE: 'off',
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  WAIT_FOR_FINISH_HOLD: '2s',
  EXPIRY_SWEEP_INTERVAL: '200ms',
  CALLBACK_RETRY_SCHEDULE: '100ms,100ms,200ms,200ms,300ms,300ms,400ms,400ms,500ms,500ms,600ms,600ms',
  CALLBACK_POLL_INTERVAL: '50ms',
  JOB_POLL_INTERVAL: '50ms',
  CHAIN_SEAL_INTERVAL: '200ms',
  // The daily reconciliation runs only in the tests about it.
  RECONCILE_AT: 'off',
};

/** `providers`: the registration list the root is given (a test's own wallet beside the kit's: `test-wallet/`). */
export async function startTestKit(
  backend: Backend,
  env: NodeJS.ProcessEnv = {},
  opts: { clock?: TestClock; providers?: RuntimeOptions['providers'] } = {},
): Promise<TestKit> {
  const clock = opts.clock ?? new TestClock();
  const runtime = await startRuntime({ ...TEST_ENV, ...backend.env(), ...env }, { clock, providers: opts.providers });
  return {
    runtime,
    url: runtime.url,
    clock,
    async advance(by) {
      clock.advance(by);
      await runtime.settle();
    },
    settle: () => runtime.settle(),
    async newApp() {
      const creds = await runtime.services.apps.create('test');
      return { ...creds, client: new KitClient({ baseUrl: runtime.url, ...creds, clock }) };
    },
    close: () => runtime.close(),
  };
}

/** Waits until `n` 4.2 calls are held by the service (a held call's hold then runs on the service's clock). */
export const heldCalls = (kit: TestKit, n: number) => waitFor(() => kit.runtime.services.events.waiting >= n, `${n} held calls`);

/** A parent merchant and a sub-merchant owned by `client`'s app, with their password. */
export async function createMerchants(client: KitClient, appId: string, names = { parent: 'Parent Co', sub: 'Corner Shop' }) {
  const pw = 'correct horse battery';
  const pm = await client.createMerchant({ type: 'merchant', parameters: { displayName: names.parent, pw, appId } });
  const sm = await client.createMerchant({
    type: 'subMerchant',
    parameters: { displayName: names.sub, pw, appId, parentMerchantId: pm.data.id },
  });
  return { parentId: pm.data.id, subId: sm.data.id, pw };
}

/** The sandbox's own tables (`sandbox/sandbox-tables.ts`), for tests that look at what the platform recorded. */
export function sandboxTables(kit: { runtime: { db: { db: Kysely<Database> } } }): Kysely<SandboxDatabase> {
  return kit.runtime.db.db.withTables<SandboxTables>();
}
