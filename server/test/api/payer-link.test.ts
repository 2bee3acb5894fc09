/**
 * `GET /p/<prepayId>`, the POS's one code for any wallet, over real HTTP with the user agents of the
 * apps' browsers: the social app's and Alipay's go to the payer page of the order (which pays in
 * each), any other browser gets the page saying, in both languages, to scan with either app.
 */
import { startTestKit, type TestKit } from '../support/kit';
import { backends } from '../support/backends';
import { newOrder, payFixture, type PayFixture } from '../support/payments';

const sqlite = backends()[0];

/** User agents as the apps' browsers send them (2025 releases). */
const SOCIAL_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UQ1A.240205.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/126.0.6478.188 Mobile Safari/537.36 XWEB/1260117 MMWEBSDK/20240801 MMWEBID/2247 MicroMessenger/8.0.50.2701(0x28003237) WeChat/arm64 Weixin NetType/WIFI Language/zh_CN ABI/arm64';
const ALIPAY_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 ChannelId(1) Ariver/1.1.0 AliApp(AP/10.6.10.6000) Nebula WK RVKType(1) AlipayDefined(nt:WIFI,ws:390|780|3.0) AlipayClient/10.6.10.6000 Language/zh-Hans Region/CN NebulaX/1.0.0';
const CHROME_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

async function open(url: string, userAgent: string, lang = 'en') {
  const res = await fetch(url, { headers: { 'user-agent': userAgent, 'accept-language': lang }, redirect: 'manual' });
  return {
    status: res.status,
    location: res.headers.get('location'),
    vary: res.headers.get('vary'),
    type: res.headers.get('content-type'),
    text: await res.text(),
  };
}

describe('the payer link (one code for any wallet)', () => {
  let kit: TestKit;
  let f: PayFixture;
  let id: string;

  beforeAll(async () => {
    kit = await startTestKit(sqlite, { BASE_PATH: '/shop' });
    f = await payFixture(kit);
    id = await newOrder(f, '8.80');
  });
  afterAll(() => kit.close());

  it('is served under the base path', () => {
    expect(kit.url).toMatch(/\/shop$/);
  });

  it("sends the social app's browser to the payer page of the order, as today's link does", async () => {
    const a = await open(`${kit.url}/p/${id}`, SOCIAL_UA);
    expect(a.status).toBe(302);
    expect(a.location).toBe(`/shop/mp/#/pages/pay/index?scene=${encodeURIComponent(`sm.pay?prepayid=${id}`)}`);
    expect(a.vary).toMatch(/User-Agent/);
  });

  it("sends Alipay's browser to the same payer page (which pays with Alipay there)", async () => {
    const a = await open(`${kit.url}/p/${id}`, ALIPAY_UA);
    expect(a.status).toBe(302);
    expect(a.location).toBe(`/shop/mp/#/pages/pay/index?scene=${encodeURIComponent(`sm.pay?prepayid=${id}`)}`);
  });

  it('tells any other browser, in both languages, to scan with either app', async () => {
    for (const lang of ['en', 'zh-CN']) {
      const a = await open(`${kit.url}/p/${id}`, CHROME_UA, lang);
      expect(a.status).toBe(200);
      expect(a.location).toBeNull();
      expect(a.type).toMatch(/text\/html/);
      expect(a.text).toContain('Scan this code with the social app or with Alipay to pay.');
      expect(a.text).toContain('请用社交应用或支付宝扫码付款。');
      expect(a.text).toContain(id);
      // The page's language comes first.
      const en = a.text.indexOf('data-lang-block="en"');
      const zh = a.text.indexOf('data-lang-block="zh-CN"');
      expect(lang === 'en' ? en < zh : zh < en).toBe(true);
      expect(a.text).toContain(`<html lang="${lang}"`);
    }
  });

  it('answers a browser without a user agent like any other browser', async () => {
    const res = await fetch(`${kit.url}/p/${id}`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('data-testid="scan-with-app"');
  });

  it('sends no app anywhere for a link that holds no order id', async () => {
    const a = await open(`${kit.url}/p/not-an-id!`, ALIPAY_UA);
    expect(a.status).toBe(404);
    expect(a.location).toBeNull();
    expect(a.text).toContain('This link holds no order.');
  });
});
