/**
 * The providers a development plug-in plays (design 6.2): their settings are the operator's with
 * what the plug-in gives in place of the unset ones (`DevPlugin.plays`), and their gateway is the
 * plug-in's stand-in. Providers read the settings handed to them and never ask whether they are
 * played; without a plug-in this is the configuration itself.
 */
import type { DevPlugin } from '../../plugins/dev-plugin';
import type { ProviderModule, ServiceSettings } from './provider';
import { PROVIDERS } from './registry';

export interface Played<C extends ServiceSettings = ServiceSettings> {
  /** The configuration the providers are built with: the operator's, with the plug-in's settings of the providers it plays. */
  config: C;
  /** The ids of the providers it plays. */
  ids: ReadonlySet<string>;
}

/** `modules`: the providers the root was given (the registry's list by default). */
export function playedBy<C extends ServiceSettings>(config: C, plugin?: Pick<DevPlugin, 'plays'>, modules: readonly ProviderModule[] = PROVIDERS): Played<C> {
  if (!plugin) return { config, ids: new Set() };
  const ids = new Set<string>();
  let merged: C = config;
  for (const m of modules) {
    const played = plugin.plays(m as never, config as never);
    if (!played) continue;
    ids.add(m.id);
    merged = { ...merged, ...played.settings };
  }
  return { config: merged, ids };
}
