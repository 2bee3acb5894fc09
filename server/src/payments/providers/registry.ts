/**
 * The payment providers the kit knows, one line each (design 6.1, docs/architecture.md "Adding a
 * wallet"). The configuration schema takes each one's settings section, the notification routes and
 * the API reference's realm enum, the start's warnings (and the sandbox's platforms, `sandbox/src/stand-ins/`) are derived from
 * this list. Deleting a provider is deleting its folder and its line
 * (`removable.test.ts` proves it for `social-v2`).
 */
import { alipay } from './alipay';
import { cardNetwork } from './card-network';
import { socialV2 } from './social-v2';
import { socialV3 } from './social-v3';

export const PROVIDERS = [socialV3, socialV2, cardNetwork, alipay] as const;

export type ProviderEntry = (typeof PROVIDERS)[number];

export type Realm = ProviderEntry['realm'];

/** The realms of the notification routes, each once (two protocols of one platform share theirs). */
export const REALMS = [...new Set(PROVIDERS.map((m) => m.realm))] as [Realm, ...Realm[]];

export const isRealm = (v: unknown): v is Realm => (REALMS as readonly unknown[]).includes(v);

/** The realm whose app's browser sent this user agent (`ProviderModule.payerBrowser`), or null for any other browser. */
export function payerBrowserRealm(userAgent: string | undefined): Realm | null {
  if (!userAgent) return null;
  return PROVIDERS.find((m) => 'payerBrowser' in m && m.payerBrowser?.test(userAgent))?.realm ?? null;
}

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
