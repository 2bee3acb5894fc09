import { randomBytes } from 'node:crypto';
import type { KitCommand } from '../command';
import { parseFlags } from '../command';

/**
 * A ready-to-use setup for trying the kit on `npm start`: an app, a parent merchant and a
 * sub-merchant with payment parameters, so a cashier can log in at /pos/ at once.
 */
export const demoCommands: KitCommand[] = [
  {
    group: 'demo',
    name: 'create',
    usage: 'demo create [--password PW] [--callback URL]',
    summary: 'Creates an app, a parent merchant and a sub-merchant with SocialNative parameters; prints their ids, the app secret and the password once.',
    async run(ctx, args, out) {
      const { flags } = parseFlags(args);
      const { apps, merchants } = ctx.services;
      const pw = typeof flags.password === 'string' ? flags.password : randomBytes(9).toString('base64url');
      const app = await apps.create('demo');
      const parent = await merchants.create(app.appId, { type: 'merchant', parameters: { displayName: 'Demo Merchant', pw, appId: app.appId, disabled: false } });
      const sub = await merchants.create(app.appId, {
        type: 'subMerchant',
        parameters: { displayName: 'Demo Shop', pw, appId: app.appId, disabled: false, parentMerchantId: parent.id },
      });
      await merchants.setPaymentParams(app.appId, parent.id, 'SocialNative', {
        socialAppId: 'wx5andb0xdemo0001',
        socialMchId: '1900000001',
        ...(typeof flags.callback === 'string' ? { notifyCallbackUrl: flags.callback } : {}),
      });
      out(JSON.stringify({ appId: app.appId, appSecret: app.appSecret, parentMerchantId: parent.id, subMerchantId: sub.id, password: pw }));
      return 0;
    },
  },
];
