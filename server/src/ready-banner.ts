/**
 * What `npm start` prints for a person once the service listens (stderr): the addresses it really
 * listens on, where each part is, the settings file it read, what needs care (a sandbox reachable
 * from the network pays any code; production without a payment channel takes no payment) and next
 * steps that work on this configuration.
 */
import type { Config } from './config';
import { listeningUrls, listensOnAllAddresses } from './listen-addresses';
import { noChannelWarning } from './payments/providers/setup';
import type { ServiceAddresses } from './runtime';
import type { Played } from './payments/providers/played';
import type { ProviderModule } from './payments/providers/provider';

export interface BannerInput {
  config: Config;
  addresses: ServiceAddresses;
  port: number;
  /** The settings file read (`settings-file.ts`), if any. */
  settingsFile?: string;
  /** The providers a development plug-in plays, with their configuration (`Services.played`); none without. */
  services?: { played: Played; registered?: readonly ProviderModule[] };
  /** Interfaces to list for HOST 0.0.0.0 (tests); the machine's by default. */
  interfaces?: Parameters<typeof listeningUrls>[3];
}

export function readyBanner({ config, addresses: a, port, settingsFile, interfaces, services }: BannerInput): string[] {
  const all = listensOnAllAddresses(config.HOST);
  const urls = listeningUrls(config.HOST, port, config.BASE_PATH, interfaces);
  const warnings: string[] = [];
  if (a.sandbox && all) {
    warnings.push(
      `the sandbox is on and pays any code: anyone who reaches ${urls.slice(1).join(', ') || 'this machine'} can mark orders paid (set HOST=127.0.0.1, the development default, to keep it on this machine)`,
    );
  }
  const channels = services ? noChannelWarning(services.played.config, services.played.ids, services.registered) : noChannelWarning(config);
  if (channels) warnings.push(channels);
  const firstSteps = a.sandbox
    ? [`  first steps     npm run kit -- demo create --out demo.json   (then the README's tour)`]
    : [
        `  first steps     npm run kit -- app create --name NAME   (prints the app id and secret once)`,
        `                  then create merchants and set their payment parameters with the signed API (${a.docs})`,
      ];
  return [
    `kit ready         ${a.service}`,
    all
      ? `  listening on    every address of this machine (HOST=${config.HOST}): ${urls.join('  ')}`
      : `  listening on    ${urls[0]} only (HOST=${config.HOST}${config.production ? '' : '; HOST=0.0.0.0 lets a phone on the network reach it'})`,
    `  POS display     ${a.pos}`,
    `  mini-program    ${a.mp}`,
    `  console         ${a.console}`,
    `  API reference   ${a.docs}  (OpenAPI: ${a.openapi})`,
    `  metrics         ${a.metrics}`,
    ...(a.sandbox ? [`  sandbox         ${a.sandbox}  (pay a code: POST ${a.sandbox}pay {"codeUrl": "<QR content>"})`] : []),
    `  settings        ${settingsFile ?? 'the environment only (no .env at the checkout root; KIT_ENV_FILE names another file)'}`,
    ...warnings.map((w) => `  WARNING         ${w}`),
    ...firstSteps,
  ];
}
