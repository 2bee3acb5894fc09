/**
 * `social-v2`: the social app's payment platform over protocol v2 (2.4), for merchants who still
 * have it (`PAY_PROTOCOL=v2`): XML signed with `PAY_SP_KEY`, profit sharing, the daily bill and
 * payment codes, its `/secapi/` calls presenting the merchant API certificate (`client-certificate.ts`).
 * It names merchants as `social-v3` does and reads that section's platform settings. Deleting this
 * folder and its registry line leaves a kit without protocol v2 for the social platform
 * (`server/src/payments/providers/removable.test.ts` proves it builds).
 */
import https from 'node:https';
import { socialWallet } from '@kit/shared/wallets';
import { unconfigured } from '../protocol-v2/merchant';
import { V2Provider } from '../protocol-v2/v2-provider';
import { profitSharingOf } from '../protocol-v2/sharing';
import { v2NotificationDoc } from '../protocol-v2/notification-doc';
import { defineProvider } from '../provider';
import { dailyBillOf } from '../social-v3/daily-bill';
import { socialAccountOf, socialAdapter } from '../social-v3/merchant';
import { socialSettings } from '../social-v3/settings';
import { billsV2 } from './bill';
import { profitSharingV2 } from './profit-sharing';
import { clientTlsOf, namesClientCertificate, type ClientTls } from './client-certificate';
import { socialV2Problem, socialV2Settings } from './settings';

const settings = (production: boolean) => ({ ...socialV2Settings(production), ...socialSettings(production) });

export const socialV2 = defineProvider({
  id: 'social-v2',
  channel: 'SocialNative',
  realm: 'social',
  description: 'the social payment platform',
  payerBrowser: socialWallet.payerBrowser,
  flows: ['scan', 'miniProgram', 'app'],
  wallet: socialWallet,
  ways: socialWallet.ways,
  settings,
  settingsProblem: socialV2Problem,
  active: (config) => config.PAY_PROTOCOL === 'v2',
  gatewayUrl: (config) => config.PAY_GATEWAY_URL,
  gatewaySetting: 'PAY_GATEWAY_URL',
  missingSettings(config) {
    return [
      !config.PAY_GATEWAY_URL && 'PAY_GATEWAY_URL',
      !config.PAY_SP_APPID && 'PAY_SP_APPID',
      !config.PAY_SP_MCH_ID && 'PAY_SP_MCH_ID',
      !config.PAY_SP_KEY && 'PAY_SP_KEY',
    ].filter((s): s is string => !!s);
  },
  create(config, ctx) {
    // The merchant API certificate of the `/secapi/` calls over HTTPS, read at the first of them (a development plug-in that plays the platform hands its own).
    const certificate = (): ClientTls =>
      clientTlsOf(config) ??
      unconfigured(
        'PAY_V2_CLIENT_CERT and PAY_V2_CLIENT_KEY (or PAY_V2_CLIENT_P12 with its password), the merchant API certificate of refunds, profit sharing and payment codes',
      );
    let agent: https.Agent | undefined;
    const secapiAgent = () => (agent ??= new https.Agent({ keepAlive: true, ...certificate() }));
    // A code whose reverse could not be sent could leave a payer charged: none is taken without the certificate.
    const codes = !config.production || namesClientCertificate(config);
    if (!codes)
      ctx.log?.warn({}, 'PAY_PROTOCOL=v2 without PAY_V2_CLIENT_CERT: refunds and profit sharing will fail at the platform, and payment codes are not taken');
    const adapter = socialAdapter(config, () => {
      const baseUrl = ctx.gateway();
      if (!config.PAY_SP_KEY) unconfigured('PAY_SP_KEY');
      return { baseUrl, key: config.PAY_SP_KEY, timeoutMs: config.PAY_GATEWAY_TIMEOUT, clock: ctx.clock, secapiAgent };
    });
    const bills = billsV2(adapter, config);
    return new V2Provider(adapter, {
      id: 'social-v2',
      realm: 'social',
      flows: ['scan', 'miniProgram', 'app'],
      signType: () => config.PAY_SIGN_TYPE,
      notifyUrl: ctx.notifyUrl,
      profitSharing: profitSharingOf(adapter, () => profitSharingV2(adapter)),
      dailyBill: dailyBillOf('SocialNative', (date) => bills.download(date)),
      accountOf: socialAccountOf,
      codes,
    });
  },
  notificationDoc: v2NotificationDoc('`card`, and `social` with `PAY_PROTOCOL=v2`'),
});
