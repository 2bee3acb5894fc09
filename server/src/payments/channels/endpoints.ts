/** Where the channels' gateways are: configuration, or this service's own sandbox when it runs one. */
import type { Config } from '../../config';
import type { SelfUrl } from '../../self-url';

/** What a gateway's place depends on: a channel module's setting and its sandbox path (`ChannelModule`). */
export interface EndpointPlace {
  gatewayUrl(config: Config): string | undefined;
  sandbox: { pathPrefix: string };
}

export class ChannelEndpoints {
  constructor(
    private readonly config: Config,
    /** This service's own URL (`self-url.ts`): the sandbox's gateways hang off it, and notifications come to it without PUBLIC_URL. */
    private readonly selfUrl: SelfUrl,
  ) {}

  urlOf(module: EndpointPlace): string | undefined {
    const self = this.selfUrl();
    return module.gatewayUrl(this.config) ?? (this.config.SANDBOX_ENABLED && self ? `${self}/sandbox${module.sandbox.pathPrefix}` : undefined);
  }

  /** Base URL the channel sends notifications to. */
  publicUrl(): string {
    return (this.config.PUBLIC_URL ?? this.selfUrl() ?? '').replace(/\/+$/, '');
  }
}
