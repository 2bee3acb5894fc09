/**
 * The providers this configuration speaks through, built once by the composition root from the
 * providers it was given (the registry's list, `registry.ts`, unless it was given another): one per
 * channel (`active`), found by channel (a channel order names its channel), by realm (a
 * notification's route), by flow (which provider a payer's flow goes to) and by capability (profit
 * sharing, the daily bill), and the wallets they speak for (their ways, channels and parameters).
 * The domain reaches providers only through this and `provider.ts`.
 */
import type { Clock } from '@kit/shared/clock';
import { KitError, walletCatalogue, type ChannelParams, type PaymentChannel, type WalletCatalogue } from '@kit/shared';
import type { ChannelEndpoints } from './endpoints';
import type { ChannelName, PaymentFlow, PaymentProvider, ProviderContext, ProviderModule, ServiceSettings } from './provider';
import { PROVIDERS } from './registry';

/** The wallets a list of providers speaks for, each once, in the providers' order. */
export const walletsOf = (modules: readonly ProviderModule[]): WalletCatalogue => walletCatalogue([...new Set(modules.map((m) => m.wallet))]);

export class Providers {
  private readonly byChannel = new Map<string, PaymentProvider>();
  private readonly byRealm = new Map<string, PaymentProvider>();
  /** The provider that serves each way its module declares (design 7.2). */
  private readonly byWay = new Map<string, PaymentProvider>();
  /** The providers serving a way chosen by the merchant's parameters (4.3–4.5), with the flows of those ways. */
  private readonly byParameters = new Map<PaymentProvider, Set<string>>();

  constructor(
    config: ServiceSettings,
    readonly endpoints: ChannelEndpoints,
    clock: Clock,
    log?: ProviderContext['log'],
    /** The providers the root was given (the registry's list by default). */
    modules: readonly ProviderModule[] = PROVIDERS,
    /** The wallets they speak for (`walletsOf(modules)`): their ways, channels and parameters. */
    readonly wallets: WalletCatalogue = walletsOf(modules),
  ) {
    for (const m of modules) {
      if (!m.active(config as never)) continue;
      const notifyUrl = (kind?: 'pay' | 'refund') => {
        const base = endpoints.publicUrl();
        if (!base) throw new KitError('channel_unavailable', 'the service does not know its public URL yet (PUBLIC_URL)');
        return `${base}/pay-notify/${m.realm}${kind ? `/${kind}` : ''}`;
      };
      const p = m.create(config as never, { gateway: () => endpoints.gatewayOf(m), notifyUrl, log, clock });
      this.byChannel.set(p.channel, p);
      this.byRealm.set(p.realm, p);
      for (const way of m.ways) {
        this.byWay.set(way.name, p);
        if (way.chosenBy === 'parameters') this.byParameters.set(p, (this.byParameters.get(p) ?? new Set()).add(way.flow));
      }
    }
  }

  get(channel: ChannelName): PaymentProvider {
    const p = this.byChannel.get(channel);
    if (!p) throw new KitError('channel_unavailable', `payment channel ${channel} is not available`);
    return p;
  }

  /** Every provider of this configuration, in registry order. */
  all(): PaymentProvider[] {
    return [...this.byChannel.values()];
  }

  has(channel: ChannelName): boolean {
    return this.byChannel.has(channel);
  }

  /** The provider of a way its wallet serves itself (`chosenBy: 'wallet'`); 503 when no provider of this configuration serves it. */
  ofWay(way: string): PaymentProvider {
    const p = this.byWay.get(way);
    if (!p) throw new KitError('channel_unavailable', `no payment channel of this service takes the way ${way}`);
    return p;
  }

  forRealm(realm: string): PaymentProvider | undefined {
    return this.byRealm.get(realm);
  }

  /**
   * The provider a payer's flow goes to: one its merchant's parameters pick (`picks`), else the
   * flow's default; `params` reads the sub-merchant's effective parameters of a channel.
   */
  async forFlow(flow: PaymentFlow, params: (channel: ChannelName) => Promise<Partial<ChannelParams[PaymentChannel]>>): Promise<PaymentProvider> {
    const able = [...this.byParameters].filter(([, flows]) => flows.has(flow)).map(([p]) => p);
    for (const p of able) if (p.picks && p.picks(await params(p.channel))) return p;
    const fallback = able.find((p) => !p.picks);
    if (!fallback) throw new KitError('channel_unavailable', `no payment channel takes ${flow} payments`);
    return fallback;
  }

  /** The providers that offer a capability. */
  with<K extends 'profitSharing' | 'dailyBill'>(capability: K): Array<PaymentProvider & Required<Pick<PaymentProvider, K>>> {
    return [...this.byChannel.values()].filter((p): p is PaymentProvider & Required<Pick<PaymentProvider, K>> => p[capability] !== undefined);
  }
}
