/**
 * The one plug-in point (design 6.2): the payment sandbox is loaded here, and only when
 * SANDBOX_ENABLED. It is imported lazily: a production build keeps it out of the service's bundle
 * (`server/run.mjs` splits it into a chunk of its own), and a service without it never loads it.
 */
import type { Config } from '../config';
import type { DevPlugin } from './dev-plugin';

export async function loadDevPlugin(config: Pick<Config, 'SANDBOX_ENABLED'>): Promise<DevPlugin | undefined> {
  if (!config.SANDBOX_ENABLED) return undefined;
  const { sandboxPlugin } = await import('@kit/sandbox');
  return sandboxPlugin;
}
