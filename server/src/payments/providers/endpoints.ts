/** Where the channels' gateways are: configuration, or this service's own sandbox when it runs one. */
import { KitError } from '@kit/shared';
import type { SelfUrl } from '../../self-url';
import type { ServiceSettings } from './provider';

/** What a gateway's place depends on: a provider's setting and its sandbox path (`ProviderModule`). */
export interface EndpointPlace {
  /** Reads the provider's own section of the configuration. */
  gatewayUrl(config: never): string | undefined;
  /** The name of that setting, for the message when there is no gateway. */
  gatewaySetting: string;
  sandbox: { pathPrefix: string };
}

export class ChannelEndpoints {
  constructor(
    private readonly config: ServiceSettings,
    /** This service's own URL (`self-url.ts`): the sandbox's gateways hang off it, and notifications come to it without PUBLIC_URL. */
    private readonly selfUrl: SelfUrl,
  ) {}

  urlOf(module: EndpointPlace): string | undefined {
    const self = this.selfUrl();
    return module.gatewayUrl(this.config as never) ?? (this.config.SANDBOX_ENABLED && self ? `${self}/sandbox${module.sandbox.pathPrefix}` : undefined);
  }

  /**
   * The gateway's URL, or 503 `channel_unavailable` saying what would give one. Without the
   * setting the sandbox is the gateway, and it is served by the running service: a `kit` command
   * with no service running on its DATA_DIR has none to reach (`kit/main.ts` finds the service).
   */
  gatewayOf(module: EndpointPlace): string {
    const url = this.urlOf(module);
    if (url) return url;
    if (this.config.SANDBOX_ENABLED) {
      throw new KitError(
        'channel_unavailable',
        `the payment channel's gateway is the sandbox of the running service, and no service is running on ${this.config.DATA_DIR}: start it (npm start, with the same settings), or set ${module.gatewaySetting}`,
      );
    }
    throw new KitError(
      'channel_unavailable',
      `the payment channel is not configured: set ${module.gatewaySetting}${this.config.production ? '' : ' (or turn SANDBOX_ENABLED on to pay against the sandbox)'}`,
    );
  }

  /** Base URL the channel sends notifications to. */
  publicUrl(): string {
    return (this.config.PUBLIC_URL ?? this.selfUrl() ?? '').replace(/\/+$/, '');
  }
}
