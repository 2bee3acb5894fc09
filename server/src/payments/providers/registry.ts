/**
 * The payment providers the kit knows, one line each (design 6.1, docs/architecture.md "Adding a
 * wallet"). The configuration schema takes each one's settings section, the notification routes and
 * the API reference's realm enum, the start's warnings and the sandbox's platforms are derived from
 * this list. Deleting a provider is deleting its folder and its line
 * (`removable.test.ts` proves it for `social-v2`).
 */
import { alipay } from './alipay';
import { cardNetwork } from './card-network';
import { FLOW_COLUMN, type ServiceSettings } from './provider';
import { socialV2 } from './social-v2';
import { socialV3 } from './social-v3';

export const PROVIDERS = [socialV3, socialV2, cardNetwork, alipay] as const;

export type ProviderEntry = (typeof PROVIDERS)[number];

export type Realm = ProviderEntry['realm'];

/** The realms of the notification routes, each once (two protocols of one platform share theirs). */
export const REALMS = [...new Set(PROVIDERS.map((m) => m.realm))] as [Realm, ...Realm[]];

export const isRealm = (v: unknown): v is Realm => (REALMS as readonly unknown[]).includes(v);

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every provider's settings section, as one zod shape (`config.ts` puts it into the schema). */
export function providerSettings(production: boolean): Intersection<ReturnType<ProviderEntry['settings']>> {
  return Object.assign({}, ...PROVIDERS.map((m) => m.settings(production)));
}

/** Why a configuration is refused by a provider's own checks, or null. */
export function providerSettingsProblem(config: Record<string, unknown> & { NODE_ENV: string }): string | null {
  for (const m of PROVIDERS) {
    const problem = 'settingsProblem' in m && m.settingsProblem ? m.settingsProblem(config as never) : null;
    if (problem) return problem;
  }
  return null;
}

/** A platform the development sandbox stands in for: one per realm (docs/sandbox.md). */
export interface SandboxRealm {
  realm: Realm;
  description: string;
  /** The trade types (column values) its unified order takes. */
  tradeTypes: string[];
  pathPrefix: string;
  sharesProfits: boolean;
  publishesBills: boolean;
  /** Whether the sandbox serves protocol v2's endpoints under its prefix (a platform with routes of its own: not). */
  protocolV2: boolean;
}

export interface SandboxPlatform extends SandboxRealm {
  /** The key its protocol-v2 stand-in signs with ('' when no provider of the realm speaks protocol v2). */
  key: string;
  merchantProblem(f: Record<string, string>): string | null;
}

const providersOf = (realm: Realm) => PROVIDERS.filter((m) => m.realm === realm);

/** The sandbox's platforms, the providers of one realm taken together. */
export function sandboxRealm(realm: Realm): SandboxRealm {
  const of = providersOf(realm);
  return {
    realm,
    description: of[0].description,
    tradeTypes: [...new Set(of.flatMap((m) => m.flows.map((f) => FLOW_COLUMN[f])))],
    pathPrefix: of[0].sandbox.pathPrefix,
    sharesProfits: of.some((m) => m.sandbox.sharesProfits),
    publishesBills: of.some((m) => m.sandbox.publishesBills),
    protocolV2: of.some((m) => !('ownRoutes' in m.sandbox && m.sandbox.ownRoutes)),
  };
}

export const sandboxRealms = (): SandboxRealm[] => REALMS.map(sandboxRealm);

/** A sandbox platform with what the configuration says of it. */
export function sandboxPlatform(config: ServiceSettings, realm: Realm): SandboxPlatform {
  const of = providersOf(realm);
  return {
    ...sandboxRealm(realm),
    key: of.map((m) => m.sandbox.key(config as never)).find((k) => k !== '') ?? '',
    merchantProblem: (f) => of[0].sandbox.merchantProblem(config as never, f),
  };
}

export const sandboxPlatforms = (config: ServiceSettings): SandboxPlatform[] => REALMS.map((r) => sandboxPlatform(config, r));
