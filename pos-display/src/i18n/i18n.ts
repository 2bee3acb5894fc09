/**
 * The display's language: `?lang=zh-CN|en` in the page URL wins, then the cashier's choice with
 * the header switch (kept in this browser), then the browser's own language (`zh*` → Chinese,
 * otherwise English). Stores keep messages as keys (`Msg`), so switching the language redraws
 * every text on screen, errors included.
 */
import { createLangStore as createLangStoreOf, msg as msgOf, translate, hasKey, type Msg as MsgOf } from '@kit/web-common/i18n';
import type { Lang } from '@kit/shared/i18n';
import { formatMoneyText, formatPointsText, groupDecimalInput } from '@kit/shared/money-format';
import { channelWords, everyWalletName, walletName, type ChannelWords } from '@kit/web-common/wallets';
import { MESSAGES, type MessageKey } from './messages';

export type { Lang, MessageKey };
export type { LangState } from '@kit/web-common/i18n';

/** A text to show: a catalogue key and its values (which may be texts themselves). */
export type Msg = MsgOf<MessageKey>;

export const msg = (key: MessageKey, params?: Msg['params']): Msg => msgOf(key, params);

export const isMessageKey = (key: string): key is MessageKey => hasKey(MESSAGES, key);

export interface Translator {
  lang: Lang;
  (text: MessageKey | Msg, params?: Msg['params']): string;
  /** A money decimal from the wire, the shared way: `¥1,234.50`. */
  money(text: string): string;
  /** A points decimal from the wire with its unit: `1,234.50000 points` / `1,234.50000积分`. */
  points(text: string): string;
  /** An amount being typed, grouped: `1,000,000.5`. */
  typing(text: string): string;
  /** A channel's words as its wallet declares them: its name on a chip (`names`), "paid with …" (`paidWith`). */
  channel(channel: string, words: ChannelWords): string;
  /** A wallet's name by its id ("the social app"). */
  wallet(id: string): string;
  /** Every wallet's name as one list ("the social app or Alipay"). */
  wallets(): string;
}

export function translator(lang: Lang): Translator {
  const t = translate(MESSAGES, lang) as Translator;
  t.lang = lang;
  t.money = (text) => formatMoneyText(text);
  t.points = (text) => formatPointsText(text, lang);
  t.typing = (text) => groupDecimalInput(text);
  t.channel = (channel, words) => channelWords(lang, channel, words);
  t.wallet = (id) => walletName(lang, id);
  t.wallets = () => everyWalletName(lang);
  return t;
}

export const createLangStore = (win: Window = window) =>
  createLangStoreOf(win, { savedKey: 'pos-display-lang', titleOf: (lang) => MESSAGES[lang]['app.title'] });
