/** Alipay's stand-in (`sandbox/src/alipay/`): its gateway and payer under `/sandbox/alipay`. */
import { defineStandIn } from './stand-in';

export const alipayStandIn = defineStandIn<unknown>({
  provider: 'alipay',
  pathPrefix: '/alipay',
  gatewayPath: '/alipay/gateway.do',
  // It signs with RSA keys (the development keys in DATA_DIR), not a protocol-v2 key.
  key: () => '',
  merchantProblem: (_config, f) => (!f.app_auth_token ? 'app_auth_token missing' : null),
  sharesProfits: false,
  publishesBills: false,
  ownRoutes: true,
});
