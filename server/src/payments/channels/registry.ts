/**
 * The payment channels the service speaks, one module each. Notify routes, the realm enum of the
 * API reference and the sandbox's platforms are derived from this list: a new channel is one
 * folder and one line here (and its name in @kit/shared's PAYMENT_CHANNELS, the API's own enum).
 */
import { cardNetwork } from './card-network';
import { socialNative } from './social-native';

export const CHANNEL_MODULES = [socialNative, cardNetwork] as const;

export type Realm = (typeof CHANNEL_MODULES)[number]['realm'];

export const REALMS = CHANNEL_MODULES.map((m) => m.realm) as [Realm, ...Realm[]];

export const isRealm = (v: unknown): v is Realm => (REALMS as readonly unknown[]).includes(v);

export function realmModule(realm: Realm): (typeof CHANNEL_MODULES)[number] {
  return CHANNEL_MODULES.find((m) => m.realm === realm)!;
}
