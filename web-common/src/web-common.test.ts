/** @jest-environment jsdom */
/** The shared stores of the POS display and the console, in jsdom: language choice, translation, hash routes, the session's phases. */
import { KitApiError, KitNetworkError } from '@kit/shared/errors';
import { createLangStore, msg, translate, type Msg } from './i18n';
import { createHashRouteStore } from './hash-route';
import { createSessionStore, type SessionApi } from './session-store';
import { describeServiceFailure } from './failure';

const MESSAGES = {
  en: { 'app.title': 'Kit', greet: 'Hello {name}', outer: 'Said: {inner}', only: 'English only' },
  'zh-CN': { 'app.title': '套件', greet: '你好 {name}', outer: '说：{inner}', only: '仅英文' },
};
type Key = keyof typeof MESSAGES.en;

function at(url: string): Window {
  window.history.replaceState(null, '', url);
  return window;
}

describe('translate', () => {
  it('renders values, nested texts included, and falls back to English for a text the language lacks', () => {
    const { only: _only, ...zhWithoutOnly } = MESSAGES['zh-CN'];
    const zh = translate({ ...MESSAGES, 'zh-CN': zhWithoutOnly as typeof MESSAGES.en }, 'zh-CN');
    expect(zh('greet', { name: 'A' })).toBe('你好 A');
    expect(zh(msg<Key>('outer', { inner: msg<Key>('greet', { name: 'B' }) }))).toBe('说：你好 B');
    expect(zh('only')).toBe('English only');
  });
});

describe('createLangStore', () => {
  beforeEach(() => window.localStorage.clear());

  it('takes ?lang= first, then the saved choice, then the browser; keeps <html lang> and the title in step', () => {
    window.localStorage.setItem('k-lang', 'en');
    const fromUrl = createLangStore(at('/p/?lang=zh-CN'), { savedKey: 'k-lang', titleOf: (l) => MESSAGES[l]['app.title'] });
    expect(fromUrl.getState().lang).toBe('zh-CN');
    expect(document.documentElement.lang).toBe('zh-CN');
    expect(document.title).toBe('套件');

    const saved = createLangStore(at('/p/'), { savedKey: 'k-lang', titleOf: (l) => MESSAGES[l]['app.title'] });
    expect(saved.getState().lang).toBe('en');
  });

  it('remembers the switch and drops ?lang= from the URL so that a reload keeps the choice', () => {
    const store = createLangStore(at('/p/?lang=en&x=1'), { savedKey: 'k-lang', titleOf: (l) => MESSAGES[l]['app.title'] });
    store.getState().choose('zh-CN');
    expect(window.localStorage.getItem('k-lang')).toBe('zh-CN');
    expect(window.location.search).toBe('?x=1');
    expect(document.title).toBe('套件');
  });
});

describe('createHashRouteStore', () => {
  type R = { name: 'home' } | { name: 'item'; id: string };
  const parse = (h: string): R => (/^#\/item\/(\w+)$/.test(h) ? { name: 'item', id: h.slice(7) } : { name: 'home' });
  const hashOf = (r: R) => (r.name === 'item' ? `#/item/${r.id}` : '#/');

  it('follows the hash both ways, and a hash meaning the route on screen changes nothing', () => {
    const store = createHashRouteStore(at('/p/#/item/a1'), parse, hashOf);
    expect(store.getState().route).toEqual({ name: 'item', id: 'a1' });
    store.getState().go({ name: 'home' });
    expect(window.location.hash).toBe('#/');
    const before = store.getState().route;
    window.location.hash = '#/nowhere';
    window.dispatchEvent(new HashChangeEvent('hashchange'));
    expect(store.getState().route).toBe(before);
    window.location.hash = '#/item/b2';
    window.dispatchEvent(new HashChangeEvent('hashchange'));
    expect(store.getState().route).toEqual({ name: 'item', id: 'b2' });
  });
});

describe('createSessionStore', () => {
  const words = {
    describeFailure: (e: unknown): Msg<string> => msg(e instanceof KitNetworkError ? 'error.network' : 'error.other'),
    loginInvalid: msg('error.login_invalid'),
  };
  const api = (over: Partial<SessionApi<{ id: string }>> = {}): SessionApi<{ id: string }> => ({
    session: async () => ({ session: null, expired: true }),
    login: async (userId) => ({ session: { id: userId } }),
    logout: async () => undefined,
    ...over,
  });

  it('restores an expired login as logged out with the reason, logs in with the id trimmed, and says why a login failed', async () => {
    const store = createSessionStore(api(), words);
    await store.getState().restore();
    expect(store.getState()).toMatchObject({ phase: 'loggedOut', message: { key: 'error.login_invalid' } });
    expect(await store.getState().login(' SM1 ', 'pw')).toBe(true);
    expect(store.getState()).toMatchObject({ phase: 'loggedIn', session: { id: 'SM1' }, message: null, busy: false });

    const failing = createSessionStore(api({ login: () => Promise.reject(new KitNetworkError('down')) }), words);
    expect(await failing.getState().login('SM1', 'pw')).toBe(false);
    expect(failing.getState()).toMatchObject({ phase: 'checking', busy: false, message: { key: 'error.network' } });
  });

  it('runs onLeave on logout and on expiry (only once logged in), and a 401 while restoring is no error', async () => {
    let left = 0;
    const store = createSessionStore(
      api({ session: () => Promise.reject(new KitApiError(401, { status: 'fail', error: 'unauthorized' })) }),
      words,
      () => left++,
    );
    await store.getState().restore();
    expect(store.getState()).toMatchObject({ phase: 'loggedOut', message: null });
    store.getState().expired();
    expect(left).toBe(0);
    await store.getState().login('SM1', 'pw');
    store.getState().expired();
    expect(left).toBe(1);
    expect(store.getState()).toMatchObject({ phase: 'loggedOut', message: { key: 'error.login_invalid' } });
    await store.getState().logout();
    expect(left).toBe(2);
  });
});

describe('describeServiceFailure', () => {
  const CATALOGUE = {
    en: { 'error.network': 'offline', 'error.login_invalid': 'log in again', 'error.generic': 'failed ({code})', 'error.not_found': 'no such order' },
    'zh-CN': { 'error.network': '离线', 'error.login_invalid': '请重新登录', 'error.generic': '失败（{code}）', 'error.not_found': '没有该订单' },
  };

  it("says the catalogue's text for a known error id, the generic one with the code otherwise, and nothing for other errors", () => {
    expect(describeServiceFailure(CATALOGUE, new KitApiError(404, { status: 'fail', error: 'not_found', code: 'E404' }))).toEqual({ key: 'error.not_found' });
    expect(describeServiceFailure(CATALOGUE, new KitApiError(500, { status: 'fail', error: 'strange', code: 'E500' }))).toEqual({
      key: 'error.generic',
      params: { code: 'E500' },
    });
    expect(describeServiceFailure(CATALOGUE, new KitApiError(401, { status: 'fail', error: 'unauthorized' }))).toEqual({ key: 'error.login_invalid' });
    expect(describeServiceFailure(CATALOGUE, new KitApiError(401, { status: 'fail', error: 'login_failed' }))).toEqual({
      key: 'error.generic',
      params: { code: '401' },
    });
    expect(describeServiceFailure(CATALOGUE, new KitNetworkError('down'))).toEqual({ key: 'error.network' });
    expect(describeServiceFailure(CATALOGUE, new Error('bug'))).toBeUndefined();
  });
});
