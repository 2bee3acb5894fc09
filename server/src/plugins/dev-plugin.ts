/**
 * What a development plug-in may add to the service (design 6.2, docs/architecture.md). The payment
 * sandbox (`@kit/sandbox`, top-level `sandbox/`) is the one there is: `load.ts` loads it when
 * SANDBOX_ENABLED, and only then. Production code asks these hooks and never names the sandbox:
 * without a plug-in every hook is absent and the service is the production one.
 */
import type { Clock } from '@kit/shared/clock';
import type { Router } from 'express';
import type { KitError, Lang, PaymentChannel } from '@kit/shared';
import type { Config } from '../config';
import type { DbHandle } from '../db/connect';
import type { MigrationSet } from '../db/migrations';
import type { JobKind } from '../jobs/job-worker';
import type { Jobs } from '../jobs/jobs';
import type { RouteDoc } from '../openapi/describe';
import type { ProviderModule } from '../payments/providers/provider';

/**
 * The types of what the service hands a plug-in (`DevPluginDeps`, `DevParts`), for the plug-in's own
 * code: a plug-in imports the service's types from here and its few shared helpers from `./kit.ts`,
 * never a module of the service itself (`import-graph.test.ts`). Type-only: nothing of the service
 * runs in the plug-in through them.
 */
export type { Config } from '../config';
export type { DbHandle } from '../db/connect';
export type { Database, Executor } from '../db/schema';
export type { Dialect } from '../db/dialect';
export type { MigrationSet } from '../db/migrations';
export type { JobHandler, JobKind } from '../jobs/job-worker';
export type { JobRow, JobSettlement } from '../jobs/job-store';
export type { Retry } from '../jobs/retry';
export type { Jobs } from '../jobs/jobs';
export type { RouteDoc } from '../openapi/describe';
export type { ProviderModule, ServiceSettings } from '../payments/providers/provider';

export interface DevPlugin {
  /** Its name in logs. */
  name: string;
  /** Its own migration sets, applied after the service's and recorded in their own tables. */
  migrations: MigrationSet[];
  /** Its routes' descriptions in the API reference, under a tag of their own. */
  openApi: { tag: { name: string; description: string; /** The description in the reference's Chinese. */ zh: string }; routes: readonly RouteDoc[] };
  /**
   * Where the platform of a provider it plays (`plays`) is: the plug-in's stand-in of that platform,
   * under this service's own URL (`self-url.ts`); undefined when it has none.
   */
  standInOf(provider: ProviderModule, selfUrl: string): string | undefined;
  /**
   * Whether it plays a provider's platform with this configuration, and the settings it gives that
   * provider in place of the operator's (for Alipay: its development app id, key pair and mini app
   * id); undefined when the provider talks to its real platform. A played provider's gateway is
   * `standInOf`, and its gateway setting is not missing (`payments/providers/played.ts`).
   */
  plays(provider: ProviderModule, config: Config): { settings: Record<string, string> } | undefined;
  /** The mini-program platform's server API (`stable_token`, `getwxacodeunlimit`) when MP_API_URL is unset. */
  mpApiUrl(selfUrl: string): string;
  /** The payer login's `jscode2session` when MP_LOGIN_URL is unset: the mini-program's hand-off in development. */
  payerLoginUrl(selfUrl: string): string;
  /** Builds its parts once the service's exist (`services.ts`). */
  compose(deps: DevPluginDeps): DevParts;
}

/** What the service gives a plug-in it composes. */
export interface DevPluginDeps {
  config: Config;
  handle: DbHandle;
  jobs: Jobs;
  /** An app's signing secret (a development receiver checks callbacks as a merchant would). */
  secretOf(appId: string): Promise<string | undefined | null>;
  /** The service's rules for what a request carries: the plug-in's routes read bodies and URLs by them too. */
  requestRules: RequestRules;
  /** The service's clock (design 7.1): a plug-in's delays and decisions read it too. */
  clock: Clock;
}

/** The service's rules for request bodies and URLs (`http/body.ts`), one for every route of the service. */
export interface RequestRules {
  /**
   * A JSON body as the service reads one. Refused with a `KitError` (`invalid_request` or
   * `invalid_json`, its message saying why) when it nests arrays and objects deeper than 64
   * levels (checked before parsing), is not UTF-8 or not JSON, or holds a NUL (U+0000) or a lone
   * UTF-16 surrogate in any string.
   */
  parseJson(bytes: Buffer): unknown;
  /** The refusal of a URL whose path or query holds a NUL (`%00`); undefined when it holds none. */
  refuseNulInUrl(url: string): KitError | undefined;
}

/** A merchant callback a development receiver got (the console's "Received" list). */
export interface DevReceivedCallback {
  at: string;
  url: string;
  body: string;
  signature: string;
  prepayId?: string;
  status?: string;
}

/** A card on the service's front page (`GET /`), in the page's languages. */
export interface HomeLink {
  id: string;
  /** Under the service's base path, e.g. `/sandbox/`. */
  path: string;
  title: Record<Lang, string>;
  text: Record<Lang, string>;
}

export interface DevParts {
  /** Where its routes hang under the base path (`/sandbox`). */
  mountPath: string;
  /** Its routes; `home` is the service's front page. */
  routes(opts: { home: string }): Router;
  /** Its queues, registered beside the kit's (`jobs/registry.ts`). */
  jobs: JobKind[];
  homeLinks: HomeLink[];
  /** A development receiver of merchant callbacks (at `path` under the base path) whose latest the console shows. */
  receiver?: { path: string; list(merchantIds?: readonly string[]): DevReceivedCallback[] };
  /** How a person pays in it, for `kit demo create`'s next steps (`url`: the service's). */
  demoPaySteps?(url: string): string[];
  /**
   * Payment parameters its stand-ins accept for channels beyond the social one, which `kit demo create`
   * gives the demo shop too (with its `notifyCallbackUrl`), so that either wallet pays its orders.
   */
  demoPaymentParams?: Array<{ paymentChannel: PaymentChannel; params: Record<string, string> }>;
  /** The plug-in's own object, for its own tests (`sandboxOf` in `@kit/sandbox`); the service never reads it. */
  readonly own: unknown;
}

/** A plug-in composed into the service. */
export interface ComposedDevPlugin {
  plugin: DevPlugin;
  parts: DevParts;
}
