/**
 * The sandbox's platforms: one stand-in per provider of the service's registry, the stand-ins of
 * one realm taken together as one platform (each says its realm itself: the sandbox reads no
 * provider of the service). Adding a wallet adds its stand-in to `STAND_INS`
 * (docs/architecture.md, "Adding a wallet"); a provider without one is not played. A stand-in
 * whose platform has routes of its own brings its part (`part.ts`), which the sandbox builds, mounts
 * and describes from here: the sandbox's other files name no wallet.
 */
import type { ProviderModule, ServiceSettings } from '@kit/server/plugins/dev-plugin';
import { alipayStandIn } from './alipay';
import { cardNetworkStandIn } from './card-network';
import { socialV2StandIn, socialV3StandIn } from './social';
import type { StandInPart } from './part';
import type { StandIn } from './stand-in';

const DECLARED = [socialV3StandIn, socialV2StandIn, cardNetworkStandIn, alipayStandIn] as const;
const STAND_INS = DECLARED as unknown as readonly StandIn<never>[];

/**
 * What the stand-ins lend the package's users (the tests, the bench's fleet): the wallets' development
 * keys, the settings to give a service whose gateway is another instance's sandbox among them.
 */
export { ALIPAY_DEV_DIR, devAlipayMaterial, type DevAlipayMaterial } from '../alipay/dev-keys';
export { V3_DEV_DIR, devV3Material, type DevV3Material, type DevV3Settings } from '../v3/dev-credentials';

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type PartOf<S> = S extends { part?: infer X } ? (X extends StandInPart<infer N, infer P> ? { [K in N]?: P } : Record<never, never>) : Record<never, never>;
/** The sandbox's parts by name (`sandbox.<name>`), as the stand-ins declare them. */
export type StandInParts = UnionToIntersection<PartOf<(typeof DECLARED)[number]>>;

/** The parts of the stand-ins whose platforms have routes of their own. */
export const PARTS: readonly StandInPart[] = STAND_INS.flatMap((s) => (s.part ? [s.part] : []));

/** The parts that play with this configuration (their stand-in's `plays`), by name. */
export const playedParts = (config: ServiceSettings): StandInPart[] =>
  STAND_INS.flatMap((s) => (s.part && (!s.plays || s.plays(config as never) !== undefined) ? [s.part] : []));

/**
 * The wallets whose payment codes (7.4) the sandbox shows, each once (two protocols of one platform
 * charge the same codes), with the part that must play for it (none: always).
 */
export const CODE_WALLETS: ReadonlyArray<{ wallet: string; prefix: string; part?: StandInPart }> = STAND_INS.flatMap((s, i) =>
  s.codes && !STAND_INS.slice(0, i).some((t) => t.codes?.wallet === s.codes!.wallet) ? [{ ...s.codes, part: s.part }] : [],
);

/** The stand-in of a provider, if the sandbox plays it. */
export const standInOf = (provider: Pick<ProviderModule, 'id'>): StandIn<never> | undefined => STAND_INS.find((s) => s.provider === provider.id);

/** A platform's realm (`StandIn.realm`): `social`, `card`, `alipay`. */
export type Realm = string;

/** The realms of the stand-ins, each once, in the stand-ins' order. */
const REALMS: readonly Realm[] = [...new Set(STAND_INS.map((s) => s.realm))];

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
  /** Whether its protocol-v2 endpoints charge payers' payment codes (`micropay`, `reverse`): a stand-in of the realm declares `codes`. */
  takesCodes: boolean;
}

export interface SandboxPlatformRules extends SandboxRealmRules {
  /** The key its protocol-v2 stand-in signs with ('' when no provider of the realm speaks protocol v2). */
  key: string;
  merchantProblem(f: Record<string, string>): string | null;
}

/** The stand-ins of a realm. */
const playedOf = (realm: Realm) => STAND_INS.filter((s) => s.realm === realm);

/** The sandbox's platform of a realm, the providers of that realm taken together. */
export function sandboxRealm(realm: Realm): SandboxRealmRules {
  const of = playedOf(realm);
  return {
    realm,
    description: of[0].description,
    tradeTypes: [...new Set(of.flatMap((s) => s.tradeTypes))],
    pathPrefix: of[0].pathPrefix,
    sharesProfits: of.some((s) => s.sharesProfits),
    publishesBills: of.some((s) => s.publishesBills),
    protocolV2: of.some((s) => !s.ownRoutes),
    takesCodes: of.some((s) => !s.ownRoutes && s.codes !== undefined),
  };
}

/** The realms the sandbox plays. */
export const sandboxRealms = (): SandboxRealmRules[] => REALMS.filter((r) => playedOf(r).length > 0).map(sandboxRealm);

/** A sandbox platform with what the configuration says of it. */
export function sandboxPlatform(config: ServiceSettings, realm: Realm): SandboxPlatformRules {
  const of = playedOf(realm);
  return {
    ...sandboxRealm(realm),
    key: of.map((s) => s.key(config as never)).find((k) => k !== '') ?? '',
    merchantProblem: (f) => of[0].merchantProblem(config as never, f),
  };
}

export const sandboxPlatforms = (config: ServiceSettings): SandboxPlatformRules[] =>
  REALMS.filter((r) => playedOf(r).length > 0).map((r) => sandboxPlatform(config, r));
