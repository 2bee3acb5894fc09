/**
 * Which payment channels can take a payment with this configuration, and what each still needs:
 * a production start without any says so (`ready-banner.ts`, and a warning log line) instead of
 * leaving the first payment to answer 503 `channel_unavailable`.
 */
import type { Config } from '../../config';
import { CHANNEL_MODULES } from './registry';

export interface ChannelSetup {
  channel: string;
  description: string;
  missing: string[];
}

export function channelSetup(config: Config): ChannelSetup[] {
  return CHANNEL_MODULES.map((m) => ({ channel: m.channel, description: m.description, missing: m.missingSettings(config) }));
}

/** The warning for a configuration on which no channel can take a payment; null when one can. */
export function noChannelWarning(config: Config): string | null {
  const setup = channelSetup(config);
  if (setup.some((s) => s.missing.length === 0)) return null;
  return `no payment channel is configured, so orders can be created but not paid (503 channel_unavailable): ${setup
    .map((s) => `${s.channel} (${s.description}) needs ${s.missing.join(', ')}`)
    .join('; ')} (docs/payments.md, "Connecting a real merchant account")`;
}
