/** The card-network acquirer's stand-in (protocol v2 under `/sandbox/card`). */
import { defineStandIn } from './stand-in';

export const cardNetworkStandIn = defineStandIn<{ CARD_KEY?: string }>({
  provider: 'card-network',
  realm: 'card',
  description: 'the card-network acquirer',
  // Its mini-program payment: protocol v2's JSAPI.
  tradeTypes: ['JSAPI'],
  pathPrefix: '/card',
  key: (config) => config.CARD_KEY ?? '',
  merchantProblem: (_config, f) => (!f.mch_id ? 'mch_id missing' : !f.device_info ? 'device_info (terminal id) missing' : null),
  sharesProfits: false,
  publishesBills: false,
});
