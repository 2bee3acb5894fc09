/**
 * The payment providers the kit knows, one line each (design 6.1, docs/architecture.md "Adding a
 * wallet"): the kit's registration list. The composition root takes it (`startRuntime(env,
 * {providers})`, this list unless it is given another): the configuration's settings sections
 * (`configuration.ts`), the providers in use, their wallets and ways, the notification routes and the
 * start's warnings come from the list it was given; the API reference's realm enum from this one
 * (the sandbox's stand-ins, `sandbox/src/stand-ins/`, say their platforms' realms themselves). Deleting a provider is deleting its
 * folder and its line (`house.test.ts` proves it for `social-v2`).
 */
import type { z } from 'zod';
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

/** The settings of every provider of this list, as the configuration carries them. */
type KitProviderSettings = z.output<z.ZodObject<Intersection<ReturnType<ProviderEntry['settings']>>>>;

declare module '../../config' {
  /** The kit's providers' settings sections in `Config` (the ground floor imports no provider: it is handed the sections). */
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the type of the sections this list hands the root, merged into config.ts's
  interface SectionSettings extends KitProviderSettings {}
}
