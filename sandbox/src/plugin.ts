/**
 * The sandbox as the service's development plug-in (`@kit/server/plugins/dev-plugin`, design 6.2):
 * what it adds to a service started with SANDBOX_ENABLED, through the one plug-in point
 * (`server/src/plugins/load.ts`). The service names none of it.
 */
import type { ComposedDevPlugin, DevPlugin, ProviderModule } from '@kit/server/plugins/dev-plugin';
import { SANDBOX_MIGRATIONS } from './migrations';
import { sandboxRoutes as sandboxRouteDocs } from './openapi/sandbox';
import { sandboxV3Routes as sandboxV3RouteDocs } from './openapi/sandbox-v3';
import { createSandbox, type Sandbox } from './sandbox';
import { sandboxRoutes } from './sandbox-routes';
import { PARTS, standInOf } from './stand-ins';
import { sandboxPlays } from './stand-ins/played';

/** Where the sandbox's routes hang under the service's base path. */
export const SANDBOX_PATH = '/sandbox';

export const sandboxPlugin: DevPlugin = {
  name: 'sandbox',
  migrations: [SANDBOX_MIGRATIONS],
  openApi: {
    tag: { name: 'Sandbox (development only)', description: 'The payment sandbox (SANDBOX_ENABLED)', zh: '支付沙箱（SANDBOX_ENABLED）' },
    routes: [...sandboxRouteDocs, ...sandboxV3RouteDocs],
  },
  // The gateway of a provider it plays: its stand-in's, under this service's URL.
  standInOf: (provider: ProviderModule, self: string) => {
    const standIn = standInOf(provider);
    return standIn && `${self}${SANDBOX_PATH}${standIn.gatewayPath ?? standIn.pathPrefix}`;
  },
  // The providers whose platform it plays, with the settings it hands them (the development keys of Alipay and API v3).
  plays: sandboxPlays,
  mpApiUrl: (self) => `${self}${SANDBOX_PATH}`,
  payerLoginUrl: (self) => `${self}${SANDBOX_PATH}/sns/jscode2session`,
  compose({ config, handle, jobs, secretOf, requestRules, clock }) {
    const sandbox = createSandbox(config, handle, jobs, secretOf, clock);
    // The stand-ins' parts that play here (Alipay's, without its settings), each with what the demo says and sets up for it.
    const played = PARTS.filter((p) => sandbox.parts[p.name] !== undefined);
    return {
      mountPath: SANDBOX_PATH,
      routes: (opts) => sandboxRoutes(sandbox, requestRules, opts),
      jobs: sandbox.jobs,
      homeLinks: [
        {
          id: 'sandbox',
          path: `${SANDBOX_PATH}/`,
          title: { en: 'Payment sandbox', 'zh-CN': '支付沙箱' },
          text: {
            en: 'Stands in for the payment platform: pay a code, make notifications and refunds go astray. No money moves.',
            'zh-CN': '代替支付平台：支付付款码，让通知和退款出错。不会有真实资金流动。',
          },
        },
      ],
      receiver: { path: `${SANDBOX_PATH}/receiver`, list: (merchantIds) => sandbox.receiver.list(merchantIds) },
      demoPaySteps: (url) => [
        `  3. Pay it in the sandbox: open the code's mini-program link on a phone or in a browser and pay at the sandbox cashier,`,
        `     or: curl -X POST ${url}${SANDBOX_PATH}/pay -H 'content-type: application/json' -d '{"codeUrl":"<the scan-code QR content>"}'`,
        ...played.flatMap((p) => p.demo?.paySteps(`${url}${SANDBOX_PATH}`) ?? []),
        `     Or the other way round: open ${url}${SANDBOX_PATH}/, Show a payment code, and type its digits in the display's "Scan the payer's code".`,
      ],
      // The demo shop's parameters of the other wallets the sandbox plays (Alipay's authorization, which its stand-in takes until withdrawn).
      demoPaymentParams: played.flatMap((p) => p.demo?.paymentParams ?? []),
      own: sandbox,
    };
  },
};

/** The sandbox a service composed (its tests reach into it); undefined when it runs without. */
export const sandboxOf = (services: { dev?: ComposedDevPlugin }): Sandbox | undefined => services.dev?.parts.own as Sandbox | undefined;
