/** The payment sandbox (docs/sandbox.md): its parts, built together when SANDBOX_ENABLED. */
import type { Config } from '../config';
import type { DbHandle } from '../db/connect';
import type { Jobs } from '../jobs/jobs';
import { SandboxFaults } from './sandbox-faults';
import { SandboxNotifier } from './sandbox-notifier';
import { SandboxPayer } from './sandbox-payer';
import { SandboxPlatform } from './sandbox-platform';
import { SandboxProfitSharing } from './sandbox-profit-sharing';
import { SandboxStore } from './sandbox-store';

export interface Sandbox {
  platform: SandboxPlatform;
  payer: SandboxPayer;
  notifier: SandboxNotifier;
  faults: SandboxFaults;
}

export function createSandbox(config: Config, handle: DbHandle, jobs: Jobs): Sandbox {
  const store = new SandboxStore(handle.db);
  const faults = new SandboxFaults();
  const notifier = new SandboxNotifier(jobs, { schedule: config.SANDBOX_NOTIFY_SCHEDULE, duplicates: config.SANDBOX_DUPLICATE_NOTIFY });
  const platform = new SandboxPlatform(store, notifier, faults, config, new SandboxProfitSharing(store, config.SANDBOX_PROFIT_SHARING_DELAY));
  const payer = new SandboxPayer(store, platform, notifier, faults, config);
  return { platform, payer, notifier, faults };
}
