/**
 * The sandbox's platforms: one stand-in per provider of the service's registry, the providers of
 * one realm taken together as one platform. Adding a wallet adds its stand-in to `STAND_INS`
 * (docs/architecture.md, "Adding a wallet"); a provider without one is not played.
 */
import { FLOW_COLUMN, type ProviderModule, type ServiceSettings } from '@kit/server/payments/providers/provider';
import { PROVIDERS, REALMS, type Realm } from '@kit/server/payments/providers/registry';
import { alipayStandIn } from './alipay';
import { cardNetworkStandIn } from './card-network';
import { socialV2StandIn, socialV3StandIn } from './social';
import type { StandIn } from './stand-in';

const STAND_INS: readonly StandIn<never>[] = [socialV3StandIn, socialV2StandIn, cardNetworkStandIn, alipayStandIn] as readonly StandIn<never>[];

/** The stand-in of a provider, if the sandbox plays it. */
export const standInOf = (provider: Pick<ProviderModule, 'id'>): StandIn<never> | undefined => STAND_INS.find((s) => s.provider === provider.id);

/** A platform the sandbox stands in for: one per realm (docs/sandbox.md). */
export interface SandboxRealmRules {
  realm: Realm;
  description: string;
  /** The trade types (column values) its unified order takes. */
  tradeTypes: string[];
  pathPrefix: string;
  sharesProfits: boolean;
  publishesBills: boolean;
  /** Whether it serves protocol v2's endpoints under its prefix (a platform with routes of its own: not). */
  protocolV2: boolean;
}

export interface SandboxPlatformRules extends SandboxRealmRules {
  /** The key its protocol-v2 stand-in signs with ('' when no provider of the realm speaks protocol v2). */
  key: string;
  merchantProblem(f: Record<string, string>): string | null;
}

/** The providers of a realm with their stand-ins. */
const playedOf = (realm: Realm) =>
  PROVIDERS.filter((m) => m.realm === realm).flatMap((m) => {
    const s = standInOf(m);
    return s ? [{ m, s }] : [];
  });

/** The sandbox's platform of a realm, the providers of that realm taken together. */
export function sandboxRealm(realm: Realm): SandboxRealmRules {
  const of = playedOf(realm);
  return {
    realm,
    description: of[0].m.description,
    tradeTypes: [...new Set(of.flatMap(({ m }) => m.flows.map((f) => FLOW_COLUMN[f])))],
    pathPrefix: of[0].s.pathPrefix,
    sharesProfits: of.some(({ s }) => s.sharesProfits),
    publishesBills: of.some(({ s }) => s.publishesBills),
    protocolV2: of.some(({ s }) => !s.ownRoutes),
  };
}

/** The realms the sandbox plays. */
export const sandboxRealms = (): SandboxRealmRules[] => REALMS.filter((r) => playedOf(r).length > 0).map(sandboxRealm);

/** A sandbox platform with what the configuration says of it. */
export function sandboxPlatform(config: ServiceSettings, realm: Realm): SandboxPlatformRules {
  const of = playedOf(realm);
  return {
    ...sandboxRealm(realm),
    key: of.map(({ s }) => s.key(config as never)).find((k) => k !== '') ?? '',
    merchantProblem: (f) => of[0].s.merchantProblem(config as never, f),
  };
}

export const sandboxPlatforms = (config: ServiceSettings): SandboxPlatformRules[] =>
  REALMS.filter((r) => playedOf(r).length > 0).map((r) => sandboxPlatform(config, r));
