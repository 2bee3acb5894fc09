/**
 * The payer page's one message catalogue: complete in both languages, words for every error id
 * the router can answer, the only source of text on the page; and the language rules.
 *
 * @jest-environment jsdom
 */
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE } from '@kit/shared/errors';
import { catalogueProblems } from '@kit/shared/i18n';
import { MESSAGES } from './messages';
import { pickLang, translator } from './i18n';
import type { createTaroMock } from '../../test/taro-mock';

jest.mock('@tarojs/taro', () => {
  const { createTaroMock } = jest.requireActual('../../test/taro-mock');
  const control = createTaroMock();
  return { __esModule: true, default: control.taro, control };
});
const taro = (jest.requireMock('@tarojs/taro') as { control: ReturnType<typeof createTaroMock> }).control.taro;

/** What the mini-program router answers the page with (the rest is shown as the generic text and its code). */
const PAYER_ERRORS = [
  'not_found',
  'order_not_active',
  'mp_login_failed',
  'mp_login_unavailable',
  'mp_not_configured',
  'mp_upstream_failed',
  'mp_upstream_unreachable',
  'shutting_down',
  'login_throttled',
  'unavailable',
];

describe('payer message catalogue', () => {
  it('has every key in both languages, no empty text and the same placeholders', () => {
    expect(catalogueProblems(MESSAGES)).toEqual([]);
  });

  it('has words for every error the router can answer, and only for real error ids', () => {
    for (const id of PAYER_ERRORS) {
      expect(Object.keys(ERROR_CATALOGUE)).toContain(id);
      expect(Object.keys(MESSAGES.en)).toContain(`error.${id}`);
    }
    for (const k of Object.keys(MESSAGES.en).filter((k) => k.startsWith('error.') && !['error.network', 'error.generic'].includes(k))) {
      expect(Object.keys(ERROR_CATALOGUE)).toContain(k.slice('error.'.length));
    }
  });

  it('says a failure in words, with the code to quote when the id has none', () => {
    const en = translator('en');
    const zh = translator('zh-CN');
    expect(en.problem({ error: 'mp_login_failed', code: 'E0080' })).toBe('Logging in to pay failed. Please try again.');
    expect(zh.problem({ network: true })).toBe('网络不可用，请检查网络后重试。');
    expect(en.problem({ error: 'invalid_request', code: 'E0001' })).toBe('Something went wrong (code E0001). Please try again.');
    expect(zh('pay.button', { amount: '¥1,000,000.00' })).toBe('支付 ¥1,000,000.00');
  });

  it('is the only source of text on the page (no words written into the JSX)', () => {
    const src = fs.readFileSync(path.join(__dirname, '../pages/pay/index.tsx'), 'utf8');
    const words = [...src.matchAll(/(?<![=-])>([^<>{}();=?]*)</g)].map((m) => m[1].trim()).filter((t) => /[A-Za-z\u4e00-\u9fff]/.test(t));
    expect(words).toEqual([]);
  });
});

describe('the page language', () => {
  afterEach(() => {
    process.env.TARO_ENV = 'weapp';
    window.history.replaceState(null, '', '/');
  });

  it('follows the social app’s language in the mini-program (zh_CN → Chinese, anything else English)', () => {
    process.env.TARO_ENV = 'weapp';
    taro.getSystemInfoSync.mockReturnValueOnce({ language: 'zh_CN' });
    expect(pickLang({})).toBe('zh-CN');
    taro.getSystemInfoSync.mockReturnValueOnce({ language: 'en' });
    expect(pickLang({})).toBe('en');
    expect(pickLang({ lang: 'zh-CN' })).toBe('zh-CN');
  });

  it('follows the browser on H5, and ?lang= before or after the # overrides it', () => {
    process.env.TARO_ENV = 'h5';
    const language = jest.spyOn(window.navigator, 'language', 'get').mockReturnValue('zh-CN');
    try {
      expect(pickLang({})).toBe('zh-CN');
      window.history.replaceState(null, '', '/mp/?lang=en#/pages/pay/index');
      expect(pickLang({})).toBe('en');
      window.history.replaceState(null, '', '/mp/#/pages/pay/index?scene=x&lang=en');
      expect(pickLang({})).toBe('en');
      language.mockReturnValue('fr-FR');
      window.history.replaceState(null, '', '/mp/#/pages/pay/index?lang=zh-CN');
      expect(pickLang({})).toBe('zh-CN');
      window.history.replaceState(null, '', '/mp/');
      expect(pickLang({})).toBe('en');
    } finally {
      language.mockRestore();
    }
  });
});
