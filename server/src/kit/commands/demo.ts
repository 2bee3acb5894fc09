import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { KitCommand } from '../command';
import { parseCommandArgs, serviceUrl, UsageError } from '../command';

/** The demo's point type and the user holding a balance of it, for the POS points screen. */
export const DEMO_POINTS = { tokenId: 'DEMO', name: 'Demo points', userId: 'demo-user', balance: '100.00000' } as const;

/**
 * A ready-to-use setup for trying the kit on `npm start`: an app, a parent merchant and a
 * sub-merchant with payment parameters of every wallet the sandbox plays (a cashier can log in at
 * /pos/ at once and take either), and a point type
 * with a balance for a demo user (the POS points screen has someone to show a code for). The
 * result is one JSON line on stdout; what to do next is said on stderr.
 */
export const demoCommands: KitCommand[] = [
  {
    group: 'demo',
    name: 'create',
    usage: 'demo create [--password PW] [--callback URL] [--out FILE]',
    summary:
      'Creates an app, a parent merchant, a sub-merchant with SocialNative parameters (and those of every other wallet the sandbox plays), and a point type with a balance for a demo user; prints their ids, the app secret, the password and the service URL once (JSON on stdout, or in FILE with --out, readable only by you), then the next steps (stderr).',
    async run(ctx, args, out, say) {
      const { values } = parseCommandArgs(args, { password: { type: 'string' }, callback: { type: 'string' }, out: { type: 'string' } });
      const { apps, merchants, chain } = ctx.services;
      // Without --callback the shop's callbacks go to the service's own development receiver (the sandbox's), so they arrive somewhere.
      const receiver = ctx.services.dev?.parts.receiver;
      const notifyCallbackUrl = values.callback ?? (receiver && `${serviceUrl(ctx)}${receiver.path}`);
      if (!notifyCallbackUrl)
        throw new UsageError('without the sandbox (SANDBOX_ENABLED) there is no development receiver: give the callback URL (--callback URL)');
      const pw = values.password ?? randomBytes(9).toString('base64url');
      const app = await apps.create('demo');
      const parent = await merchants.create(app.appId, {
        type: 'merchant',
        parameters: { displayName: 'Demo Merchant', pw, appId: app.appId, disabled: false },
      });
      const sub = await merchants.create(app.appId, {
        type: 'subMerchant',
        parameters: { displayName: 'Demo Shop', pw, appId: app.appId, disabled: false, parentMerchantId: parent.id },
      });
      await merchants.setPaymentParams(app.appId, parent.id, 'SocialNative', {
        socialAppId: 'wx5andb0xdemo0001',
        socialMchId: '1900000001',
        notifyCallbackUrl,
      });
      // The other wallets the development plug-in stands in for, with parameters its stand-ins accept.
      for (const { paymentChannel, params } of ctx.services.dev?.parts.demoPaymentParams ?? [])
        await merchants.setPaymentParams(app.appId, parent.id, paymentChannel, { ...params, notifyCallbackUrl });
      // The point type and the balance go through the ledger like any upload (4.14), then one block seals them.
      await chain.ledger.accept(app.appId, [
        { type: 'points.create', args: { id: 'demo-point-type', tokenId: DEMO_POINTS.tokenId, name: DEMO_POINTS.name } },
        {
          type: 'points.issue',
          args: { id: 'demo-points-issue', tokenId: DEMO_POINTS.tokenId, userAppId: app.appId, userId: DEMO_POINTS.userId, amount: DEMO_POINTS.balance },
        },
      ]);
      while ((await chain.sealer.sealOnce()).more);
      const points = { tokenId: DEMO_POINTS.tokenId, tokenAppId: app.appId, userAppId: app.appId, userId: DEMO_POINTS.userId, balance: DEMO_POINTS.balance };
      // `url`: where the service is reached, on the port of the settings file (or the running service's own),
      // so that the README's curl lines need not assume 8080.
      const url = serviceUrl(ctx);
      const result = JSON.stringify({
        appId: app.appId,
        appSecret: app.appSecret,
        parentMerchantId: parent.id,
        subMerchantId: sub.id,
        password: pw,
        points,
        url,
      });
      // The file holds the app secret and the password: only its owner may read it.
      if (values.out) {
        fs.writeFileSync(values.out, `${result}\n`, { mode: 0o600 });
        fs.chmodSync(values.out, 0o600);
      } else out(result);

      say(
        [
          ...(values.out ? [`Wrote the ids, the app secret and the password to ${values.out}.`] : []),
          ...(ctx.service
            ? []
            : [
                `No service is running on ${ctx.config.DATA_DIR} yet: the shop's callbacks go to ${url}, so start it there (npm start, with the same settings file).`,
              ]),
          '',
          `Next steps (with the service running: npm start)`,
          `  1. Open ${url}/pos/ and log in as ${sub.id} with the password ${pw}.`,
          // Production takes a plain-HTTP address only on loopback (production-refusals.ts), and even there no login over it by default.
          ...(url.startsWith('http:') && !ctx.config.ALLOW_INSECURE_LOGIN_ON_LOOPBACK
            ? [`     Logins over plain HTTP are refused: set ALLOW_INSECURE_LOGIN_ON_LOOPBACK=on for a trial on this machine, or use the HTTPS address.`]
            : []),
          `  2. Charge an amount: the display shows a payment code and waits.`,
          ...(ctx.services.dev?.parts.demoPaySteps?.(url) ?? [`  3. Pay it: scan the code with the payment app.`]),
          `     The display turns to "paid"; Today's orders lists the payment, with Refund.`,
          `  4. Points: on the display's Points screen, customer ${DEMO_POINTS.userId} (typed or scanned) and point type ${DEMO_POINTS.tokenId}: a balance of ${Number(DEMO_POINTS.balance)} points.`,
          `  5. Open ${url}/console/ and log in as ${parent.id} with the same password: find the order and its callback${
            values.callback ? '' : ` (delivered to the development receiver ${notifyCallbackUrl})`
          }.`,
          `  6. From your own backend: sign calls as app ${app.appId} with the appSecret ${values.out ? `in ${values.out}` : 'above'} (KitClient from @kit/shared),`,
          `     or read the API reference at ${url}/docs/.`,
        ].join('\n'),
      );
      return 0;
    },
  },
];
