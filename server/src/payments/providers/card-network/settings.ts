/** `card-network`'s settings section: the acquirer's address and key. */
import { z } from 'zod';

export function cardNetworkSettings(production: boolean) {
  return {
    CARD_GATEWAY_URL: z.string().url().optional().describe('Base URL of the card-network acquirer. Unset: the sandbox (`<service>/sandbox/card`).'),
    CARD_KEY: (production ? z.string().min(1).optional() : z.string().min(1).default('sandboxCardAcquirerKey0000000001')).describe(
      'API key at the card-network acquirer (channel `SocialCardNetworkBizSmall`).',
    ),
  };
}
