/**
 * Which payment providers can take a payment with this configuration, and what each still needs:
 * a production start without any says so (`ready-banner.ts`, and a warning log line) instead of
 * leaving the first payment to answer 503 `channel_unavailable`.
 */
import type { ProviderModule, ServiceSettings } from './provider';
import { PROVIDERS } from './registry';

export interface ChannelSetup {
  channel: string;
  description: string;
  missing: string[];
}

/**
 * The active providers (one per channel) and what each lacks; a provider a development plug-in
 * plays (`played.ts`: its settings are in `config`) has the plug-in's gateway, not its setting's.
 * `modules`: the providers the root was given (the registry's list by default).
 */
export function channelSetup(config: ServiceSettings, played: ReadonlySet<string> = new Set(), modules: readonly ProviderModule[] = PROVIDERS): ChannelSetup[] {
  return modules
    .filter((m) => m.active(config as never))
    .map((m) => ({
      channel: m.channel,
      description: m.description,
      missing: m.missingSettings(config as never).filter((s) => !(played.has(m.id) && s === m.gatewaySetting)),
    }));
}

/** The warning for a configuration on which no channel can take a payment; null when one can. */
export function noChannelWarning(config: ServiceSettings, played?: ReadonlySet<string>, modules?: readonly ProviderModule[]): string | null {
  const setup = channelSetup(config, played, modules);
  if (setup.some((s) => s.missing.length === 0)) return null;
  return `no payment channel is configured, so orders can be created but not paid (503 channel_unavailable): ${setup
    .map((s) => `${s.channel} (${s.description}) needs ${s.missing.join(', ')}`)
    .join('; ')} (docs/payments.md, "Connecting a real merchant account")`;
}
