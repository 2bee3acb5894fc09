/**
 * The payer's payment code at the counter (付款码, design 7.4): the cashier scans the code the payer's
 * wallet shows. One way for every wallet: the wallet is told by the code's digits (each wallet
 * declares its `paymentCode`), and the answer says whether the payment is done or the payer is
 * confirming it on the phone.
 */
import { z } from 'zod';
import { defineWay } from './way';

/** A payment code as scanners read it: 16 to 24 digits. Which wallet's it is, the wallets' `paymentCode` patterns tell. */
export const authCodeSchema = z.string().regex(/^\d{16,24}$/, 'must be a payment code: 16 to 24 digits');

/** `codePay` `args`: `paid` (the wallet took the money) or `waiting` (the payer confirms on the phone; the order finishes as any other), and the channel (4.7) of the wallet. */
export const codePayArgsSchema = z.object({ result: z.enum(['paid', 'waiting']), channel: z.string() });
export type CodePayArgs = z.infer<typeof codePayArgsSchema>;

export const codePay = defineWay({
  name: 'codePay',
  section: '7.4',
  flow: 'code',
  chosenBy: 'code',
  input: {
    authCode: authCodeSchema,
    /** The counter's device (a terminal or POS number), for the platform's records. */
    deviceId: z
      .string()
      .regex(/^[0-9A-Za-z_-]{1,32}$/, 'must be 1 to 32 letters, digits, "-" or "_"')
      .optional(),
  },
  args: codePayArgsSchema,
  payer: (i) => ({ authCode: i.authCode, deviceId: i.deviceId }),
  payerStep: 'showCode',
  errors: ['payment_code_refused', 'code_payment_waiting'],
  example: { input: { authCode: '134567890123456789', deviceId: 'POS-01' }, args: { result: 'paid', channel: 'SocialNative' } },
  words: {
    en: {
      summary: "Pay with the payer's payment code, scanned at the counter",
      description:
        "`authCode` is the code the payer's wallet shows (the social app's: 18 digits starting 10–15; Alipay's: 16–24 digits starting 25–30); any other code is refused without asking a platform. " +
        '`result` is `paid` when the platform took the money, `waiting` when the payer must confirm on the phone (the order then finishes as any other: 4.2 and the callback). ' +
        "A code the platform refuses (used, invalid, not enough balance) answers `fail` with the platform's code in `msg`. " +
        'A payer who does not confirm within CODE_PAY_WAIT, or an outcome the kit cannot know, is cancelled at the platform (money taken in the same moment is returned) and the order stays payable.',
    },
    'zh-CN': {
      summary: '扫付款人的付款码收款（在收银台扫码）',
      description:
        '`authCode` 是付款人钱包出示的付款码（社交应用：以 10–15 开头的 18 位数字；支付宝：以 25–30 开头的 16–24 位数字），其他码不询问任何平台直接拒绝。' +
        '平台已扣款时 `result` 为 `paid`；付款人需在手机上确认时为 `waiting`（订单随后如常完成：4.2 与回调）。' +
        '平台拒绝的码（已使用、无效、余额不足）应答 `fail`，`msg` 带平台的错误码。' +
        '付款人在 CODE_PAY_WAIT 内未确认，或结果无法确知时，服务在平台撤销该笔交易（同一时刻已扣的款会退回），订单仍可支付。',
    },
  },
});
