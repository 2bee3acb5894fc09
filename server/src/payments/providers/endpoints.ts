/** Where the channels' gateways are: configuration, or a development plug-in's stand-in under this service's URL. */
import { KitError } from '@kit/shared';
import type { DevPlugin } from '../../plugins/dev-plugin';
import type { SelfUrl } from '../../self-url';
import type { ProviderModule, ServiceSettings } from './provider';

export class ChannelEndpoints {
  constructor(
    private readonly config: ServiceSettings,
    /** This service's own URL (`self-url.ts`): a plug-in's gateways hang off it, and notifications come to it without PUBLIC_URL. */
    private readonly selfUrl: SelfUrl,
    /** The development plug-in (the sandbox), which plays the platforms whose gateway setting is unset. */
    private readonly plugin?: Pick<DevPlugin, 'standInOf'>,
    /** The providers the plug-in plays (`played.ts`): their gateway is its stand-in's, whatever their settings say. */
    private readonly played: ReadonlySet<string> = new Set(),
  ) {}

  urlOf(module: ProviderModule): string | undefined {
    if (!this.played.has(module.id) || !this.plugin) return module.gatewayUrl(this.config as never);
    const self = this.selfUrl();
    return self ? this.plugin.standInOf(module, self) : undefined;
  }

  /**
   * The gateway's URL, or 503 `channel_unavailable` saying what would give one. Without the
   * setting the sandbox is the gateway, and it is served by the running service: a `kit` command
   * with no service running on its DATA_DIR has none to reach (`kit/main.ts` finds the service).
   */
  gatewayOf(module: ProviderModule): string {
    const url = this.urlOf(module);
    if (url) return url;
    if (this.plugin && this.played.has(module.id)) {
      throw new KitError(
        'channel_unavailable',
        `the payment channel's gateway is the sandbox of the running service, and no service is running on ${this.config.DATA_DIR}: start it (npm start, with the same settings), or set ${module.gatewaySetting}`,
      );
    }
    throw new KitError(
      'channel_unavailable',
      `the payment channel is not configured: set ${module.gatewaySetting}${this.config.production || this.plugin ? '' : ' (or turn SANDBOX_ENABLED on to pay against the sandbox)'}`,
    );
  }

  /** Base URL the channel sends notifications to. */
  publicUrl(): string {
    return (this.config.PUBLIC_URL ?? this.selfUrl() ?? '').replace(/\/+$/, '');
  }
}
