/**
 * A provider's stand-in: how the sandbox plays that provider's platform (docs/sandbox.md). One per
 * provider (`index.ts`), keyed by the provider's id (`ProviderModule.id`, the service's registry);
 * the provider's folder holds none of it. What the platform is (its realm, its name, the trade
 * types its order takes) the stand-in says itself, as the platform publishes it: the sandbox reads
 * no provider of the service (`server/src/import-graph.test.ts`).
 */
import type { StandInPart } from './part';

export interface StandIn<C = never, Part extends StandInPart | undefined = StandInPart | undefined> {
  /** The provider it plays (`ProviderModule.id`). */
  provider: string;
  /** Its platform's realm, the provider's (`/pay-notify/<realm>`): the stand-ins of one realm are one platform. */
  realm: string;
  /** What the platform is, in the sandbox's answers and pages. */
  description: string;
  /** The trade types (`trade_type`) the platform's order takes over this provider's protocol. */
  tradeTypes: readonly string[];
  /** Where under `/sandbox` the platform's protocol endpoints are. */
  pathPrefix: string;
  /** The gateway the provider calls, when it is not the prefix itself (Alipay's `/alipay/gateway.do`). */
  gatewayPath?: string;
  /** The protocol-v2 key its answers are signed with ('' when the protocol has none). */
  key(config: C): string;
  /** Why the merchant of a call is refused, or null. */
  merchantProblem(config: C, f: Record<string, string>): string | null;
  sharesProfits: boolean;
  /** Whether it publishes daily bills (`…/pay/downloadbill`, and API v3's). */
  publishesBills: boolean;
  /**
   * Whether it plays the provider with this configuration, and the settings it hands the provider in
   * place of the operator's (`DevPlugin.plays`; the development keys of Alipay, of API v3 and protocol
   * v2's client certificate, handed outside production when the operator gave none). Absent: it plays the
   * provider when the provider's gateway setting is unset, handing it nothing.
   */
  plays?(config: C): { settings: Record<string, string> } | undefined;
  /** It serves its platform's protocol with its own routes under its prefix (`sandbox/src/<realm>/`), not protocol v2's. */
  ownRoutes?: true;
  /** Its side of the sandbox, for a platform with routes of its own (`part.ts`). */
  part?: Part;
  /**
   * The payer's payment codes (7.4) of its wallet that the sandbox shows (`POST /sandbox/payment-code`):
   * the wallet's id (`@kit/shared/wallets`) and the codes' first two digits, within its platform's range.
   */
  codes?: { wallet: string; prefix: string };
}

/** Keeps a stand-in's settings type, and its part's. */
export const defineStandIn = <C, Part extends StandInPart | undefined = undefined>(s: StandIn<C, Part>): StandIn<C, Part> => s;
