/**
 * The service's configuration as the composition root reads it: the ground floor's settings
 * (`config.ts`) with the settings section each registered provider hands in — the providers'
 * registry (`payments/providers/registry.ts`), or the list the root was given
 * (`startRuntime(env, {providers})`). The service, the `kit` command, `npm run docs` and the tests
 * read the configuration through here; `config.ts` itself reaches no provider.
 */
import { configKeysOf, parseConfig, settingDocsOf, type Config, type SettingDoc, type SettingsSection } from './config';
import { PROVIDERS } from './payments/providers/registry';

/** The configuration of `env`; refused, naming each setting, as the start reports it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, providers: readonly SettingsSection[] = PROVIDERS): Config {
  return parseConfig(env, providers);
}

/** Every environment variable the service reads (docs/configuration.md documents each; a test checks it). */
export const CONFIG_KEYS: readonly string[] = configKeysOf(PROVIDERS);

/** Every setting with its description and its defaults outside and in production (docs/configuration.md is written from this). */
export const settingDocs = (providers: readonly SettingsSection[] = PROVIDERS): SettingDoc[] => settingDocsOf(providers);
