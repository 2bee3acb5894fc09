/** The payment sandbox (docs/sandbox.md): its parts, built together when SANDBOX_ENABLED. */
import type { Clock } from '@kit/shared/clock';
import type { Config, DbHandle, JobKind, Jobs } from '@kit/server/plugins/dev-plugin';
import { SandboxBills } from './sandbox-bills';
import { SandboxFaults } from './sandbox-faults';
import { SandboxNotifier } from './sandbox-notifier';
import { SandboxPayer } from './sandbox-payer';
import { SandboxCodes } from './sandbox-codes';
import { SandboxPlatform } from './sandbox-platform';
import { SandboxProfitSharing } from './sandbox-profit-sharing';
import { SandboxReceiver } from './sandbox-receiver';
import { SandboxStore } from './sandbox-store';
import { SandboxMiniProgram } from './sandbox-mp';
import { SandboxMpStore } from './sandbox-mp-store';
import type { SandboxTables } from './sandbox-tables';
import { createSandboxV3, type SandboxV3 } from './v3/sandbox-v3';
import { sandboxV3Keys } from './v3/sandbox-v3-keys';
import { v3NotificationSigner, v3Notices } from './v3/sandbox-v3-notices';
import { playedParts, type StandInParts } from './stand-ins';

/** The sandbox: its own parts, and those of the stand-ins whose platforms have routes of their own (`sandbox.<name>`, `stand-ins/part.ts`) while they play. */
export type Sandbox = SandboxCore & StandInParts;

export interface SandboxCore {
  /** The service's clock (design 7.1). */
  clock: Clock;
  platform: SandboxPlatform;
  payer: SandboxPayer;
  notifier: SandboxNotifier;
  faults: SandboxFaults;
  /** The development receiver of merchant callbacks (`/sandbox/receiver`). */
  receiver: SandboxReceiver;
  /** The channel's daily trade bills, built from what the sandbox recorded. */
  bills: SandboxBills;
  /** The sandbox's own queue (`sandbox.notify`), registered beside the kit's (`jobs/registry.ts`). */
  jobs: JobKind[];
  /** The platform's API v3 side (`/sandbox/v3/…`), beside protocol v2. */
  v3: SandboxV3;
  /** The mini-program's server API: `stable_token` and `getwxacodeunlimit`. */
  miniProgram: SandboxMiniProgram;
  /** The stand-ins' parts that play here, by name (also on the sandbox itself: `sandbox.<name>`). */
  parts: Readonly<Record<string, unknown>>;
  /** The social platform's payment codes (7.4): charged through `codepay` or `micropay`, confirmed by the payer. */
  codes: SandboxCodes;
}

export function createSandbox(
  config: Config,
  handle: DbHandle,
  jobs: Jobs,
  secretOf: (appId: string) => Promise<string | undefined | null>,
  clock: Clock,
): Sandbox {
  // The sandbox's own tables beside the service's (its notifications are jobs): `sandbox-tables.ts`.
  const store = new SandboxStore(handle.db.withTables<SandboxTables>(), clock);
  // Signature probes now and then, but never where tests count notifications.
  const faults = new SandboxFaults({ v3SignProbes: config.NODE_ENV === 'test' ? 0 : 0.02 }, clock);
  // The API v3 side's keys first: the notifier signs v3 notifications and the platform writes their
  // bodies with them, both given at construction.
  const v3Keys = sandboxV3Keys(config);
  const notifier = new SandboxNotifier(jobs, { duplicates: config.SANDBOX_DUPLICATE_NOTIFY }, v3NotificationSigner(v3Keys, faults, clock), clock);
  const sharing = new SandboxProfitSharing(store, config.SANDBOX_PROFIT_SHARING_DELAY);
  const codes = new SandboxCodes(store, clock, () => faults.current);
  const platform = new SandboxPlatform(store, notifier, faults, config, sharing, v3Notices(v3Keys, clock), codes);
  const payer = new SandboxPayer(store, platform, notifier, faults, config);
  const bills = new SandboxBills(store, faults, config);
  // The stand-ins' parts that play with this configuration, under the sandbox's faults and clock.
  const parts = Object.fromEntries(playedParts(config).map((p) => [p.name, p.create(config, { faults: () => faults.current, clock })]));
  return {
    ...parts,
    parts,
    codes,
    clock,
    platform,
    payer,
    notifier,
    faults,
    receiver: new SandboxReceiver(secretOf, clock),
    bills,
    v3: createSandboxV3(config, { keys: v3Keys, store, platform, faults, bills, codes }),
    miniProgram: new SandboxMiniProgram(new SandboxMpStore(handle.db.withTables<SandboxTables>()), faults, config, clock),
    // Unacknowledged notifications are repeated on the platform's schedule, then given up.
    jobs: [
      {
        handler: notifier,
        retry: { schedule: config.SANDBOX_NOTIFY_SCHEDULE, firstWaitBeforeFirstRun: false, whenOver: 'give-up' },
        pollMs: config.JOB_POLL_INTERVAL,
        retentionMs: config.JOB_RETENTION,
      },
    ],
  };
}
