/** The sandbox's API v3 platform (docs/sandbox.md), built beside the v2 one on the same store, faults and notifier. */
import type { Clock } from '@kit/shared/clock';
import type { Config } from '@kit/server/plugins/dev-plugin';
import type { SandboxBills } from '../sandbox-bills';
import type { SandboxFaults } from '../sandbox-faults';
import type { SandboxPlatform } from '../sandbox-platform';
import type { SandboxStore } from '../sandbox-store';
import { SandboxV3Bills } from './sandbox-v3-bills';
import type { SandboxV3Keys } from './sandbox-v3-keys';
import { SandboxV3Payments } from './sandbox-v3-payments';
import type { SandboxCodes } from '../sandbox-codes';
import { SandboxV3ProfitSharing } from './sandbox-v3-profit-sharing';

export interface SandboxV3 {
  keys: SandboxV3Keys;
  /** The service's clock: the times the platform signs and checks. */
  clock: Clock;
  faults: SandboxFaults;
  payments: SandboxV3Payments;
  sharing: SandboxV3ProfitSharing;
  bills: SandboxV3Bills;
}

/**
 * The routes' side of API v3. Its keys are made first (`sandbox.ts`): the notifier signs v3
 * notifications and the platform writes their bodies with them (`v3NotificationSigner`,
 * `v3Notices`), each given them at construction.
 */
export function createSandboxV3(
  config: Config,
  parts: { keys: SandboxV3Keys; store: SandboxStore; platform: SandboxPlatform; faults: SandboxFaults; bills: SandboxBills; codes: SandboxCodes },
): SandboxV3 {
  const { keys } = parts;
  const clock = parts.store.clock;
  const payments = new SandboxV3Payments(parts.platform, parts.store, config, parts.codes);
  return {
    keys,
    clock,
    faults: parts.faults,
    payments,
    sharing: new SandboxV3ProfitSharing(payments, parts.store, keys),
    bills: new SandboxV3Bills(parts.bills, parts.faults),
  };
}
