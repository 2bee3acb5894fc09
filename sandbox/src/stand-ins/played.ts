/**
 * Which providers the sandbox plays with a configuration, and the settings it hands them
 * (`DevPlugin.plays`): a provider with a stand-in, by the stand-in's own rule (`StandIn.plays`), or
 * else when the operator left its gateway setting unset.
 */
import type { Config, ProviderModule } from '@kit/server/plugins/dev-plugin';
import { standInOf } from './index';

export function sandboxPlays(provider: ProviderModule, config: Config): { settings: Record<string, string> } | undefined {
  const standIn = standInOf(provider);
  if (!standIn) return undefined;
  if (standIn.plays) return standIn.plays(config as never);
  return provider.gatewayUrl(config as never) ? undefined : { settings: {} };
}
