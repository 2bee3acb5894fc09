/**
 * The console's catalogue is complete in both languages; counts read right in each ("1 order",
 * "2 orders", Chinese without a plural), days are written the language's way whatever the
 * browser's locale, and the words that come from the wire (channels, bill statuses) are translated.
 */
import { catalogueProblems } from '@kit/shared/i18n';
import { PAYMENT_CHANNELS } from '@kit/shared/api/merchant';
import { DIFFERENCE_KINDS } from '@kit/shared/api/reconciliation';
import { MESSAGES } from './messages';
import { counted, translator } from './i18n';

const en = translator('en');
const zh = translator('zh-CN');

describe('console catalogue', () => {
  it('has every text in both languages with the same placeholders', () => {
    expect(catalogueProblems(MESSAGES)).toEqual([]);
  });

  it('counts in English with a singular and in Chinese with one form', () => {
    expect(en.count('orders.count', 1)).toBe('1 order');
    expect(en.count('orders.count', 0)).toBe('0 orders');
    expect(en.count('orders.count', 2)).toBe('2 orders');
    expect(en.count('cb.attempts', 1)).toBe('1 attempt');
    expect(en(counted('cb.recovered', 1))).toBe('1 callback resent.');
    expect(zh.count('orders.count', 1)).toBe('1 笔订单');
    expect(zh.count('orders.count', 3)).toBe('3 笔订单');
  });

  it('writes a day the language’s way, never as the US mm/dd/yyyy', () => {
    expect(en.date('2026-11-27')).toBe('Fri, Nov 27, 2026');
    expect(zh.date('2026-11-27')).toBe('2026年11月27日周五');
    expect(en.date('not a day')).toBe('not a day');
  });

  it('translates every channel, every kind of difference with its explanation, and the bill’s statuses', () => {
    for (const channel of PAYMENT_CHANNELS) expect(zh.word('channel', channel)).not.toBe(channel);
    expect(zh.word('channel', 'SocialNative')).toBe('社交支付');
    expect(zh.word('billStatus', 'SUCCESS')).toBe('支付成功');
    expect(en.word('billRefund', 'SUCCESS')).toBe('Refunded');
    // Alipay's bill words (业务类型) too.
    expect(en.word('billStatus', '交易')).toBe('Paid');
    expect(en.word('billRefund', '退款')).toBe('Refunded');
    // A word the catalogue does not know is shown as it came rather than as a key.
    expect(en.word('billStatus', 'SOMETHING_NEW')).toBe('SOMETHING_NEW');
    for (const kind of DIFFERENCE_KINDS) {
      expect(zh(`recon.kind.${kind}`)).not.toMatch(/[a-z_]{4}/);
      expect(zh(`recon.explain.${kind}`).length).toBeGreaterThan(20);
    }
    const all = Object.values(MESSAGES.en).join('\n') + Object.values(MESSAGES['zh-CN']).join('\n');
    expect(all).not.toContain('docs/');
  });
});
