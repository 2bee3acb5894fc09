/**
 * The test-only wallet Acme Pay (docs/architecture.md, "Adding a wallet", step 4:
 * `shared/src/wallets/acme.ts` for a wallet of the kit): one way of its own, `acmeNative` (a code the
 * payer scans with Acme Pay), its channel `Acme` with its payment parameters, and its payment codes,
 * which the way of every wallet (`codePay`, the payer's code at the counter) takes.
 */
import { z } from 'zod';
import { callbackUrlSchema, channelParameters, defineWallet, defineWay, paramField } from '@kit/shared/wallets';
import { acmeLooks } from './looks';

/** `acmeNative` `args`: the code the payer scans with Acme Pay. */
export const acmeNativeArgsSchema = z.object({ qr: z.string().min(1) });

export const acmeNative = defineWay({
  name: 'acmeNative',
  // No section of the specification or the design: a wallet of the tests.
  section: '',
  flow: 'scan',
  chosenBy: 'wallet',
  input: {},
  args: acmeNativeArgsSchema,
  payer: () => ({}),
  payerStep: 'scanCode',
  example: { input: {}, args: { qr: 'acme://pay/AP0000000001' } },
  words: {
    en: { summary: 'Acme Pay scan-code payment arguments (render `args.qr` as a QR code)', description: 'A wallet registered by a test.' },
    'zh-CN': { summary: '艾克米支付扫码支付参数（将 `args.qr` 画成二维码）', description: '测试注册的钱包。' },
  },
});

export const acmeWallet = defineWallet(acmeLooks, {
  parameters: {
    /** The merchant's account at Acme Pay, and where the kit's callbacks of its payments go. */
    Acme: channelParameters({ acmeMerchantId: paramField(), notifyCallbackUrl: callbackUrlSchema }),
  },
  paymentCode: { pattern: /^99\d{16}$/, channel: 'Acme', digits: '18 digits starting 99' },
  ways: [acmeNative],
});
