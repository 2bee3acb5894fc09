/**
 * The payer's payment code (7.4) read into the kit's facts, for both protocols of the social
 * platform: v2's `micropay` and `reverse` answer in these fields, and v3's `codepay` and `reverse`
 * are read into them (`social-v3/partner-api.ts`). Paid, the payer confirming on the phone, or a
 * refusal with its meaning (`facts.ts`); an answer that says nothing of the money is
 * `channel_unavailable`, after which the kit reverses the trade (`payments/code-payments.ts`).
 */
import { KitError } from '@kit/shared';
import type { CodePayment } from '../provider';
import { paidFacts, paidFieldsProblem } from './checks';
import { outcome } from './facts';
import { merchantOf } from './merchant';
import type { CodeCalls } from './types';

/**
 * Failures that say nothing of the money, in both protocols' words: the platform's guides ask for an
 * order query (v2 micropay's `SYSTEMERROR`, `BANKERROR`); the kit reverses instead, which also gives
 * back money taken meanwhile.
 */
const NO_OUTCOME = new Set(['BANKERROR', 'BANK_ERROR', 'SYSTEMERROR', 'SYSTEM_ERROR']);

export function codePaymentOf(calls: () => CodeCalls, now: () => number): CodePayment {
  return {
    async pay(co, order, code) {
      const a = await calls().codePay(co, order, code);
      // The payer types a password or confirms a large amount on the phone (v2: `err_code` USERPAYING;
      // v3: a 202 read into `trade_state`): the order query follows it.
      if (a.fields.trade_state === 'USERPAYING' || (!a.ok && a.errCode === 'USERPAYING')) return { ok: true, paid: null };
      if (!a.ok && NO_OUTCOME.has(a.errCode ?? ''))
        throw new KitError('channel_unavailable', `the payment platform gave no outcome: ${a.errCode} ${a.errMsg}`.trim());
      return outcome('order', a, (f) => {
        // v2's micropay answers a payment with `result_code` SUCCESS and no `trade_state`.
        const state = f.trade_state ?? f.result_code;
        const problem =
          state === 'SUCCESS' ? paidFieldsProblem(f, { sign_type: co.sign_type, total_cents: co.total_cents, merchant: merchantOf(co) }) : 'not SUCCESS';
        if (problem) throw new KitError('channel_unavailable', `the payment platform's answer to the payment code says ${state ?? 'nothing'}: ${problem}`);
        return { paid: paidFacts(f, now()) };
      });
    },
    async cancel(co) {
      const a = await calls().reverse(co);
      // `recall: Y` asks for the reverse again, with a success or with a failure (v2's SYSTEMERROR).
      if (a.fields.recall === 'Y') return { ok: true, again: true };
      return outcome('order', a, () => ({ again: false }));
    },
  };
}
