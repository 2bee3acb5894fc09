/** The sandbox's fixed public contract: login, jscode2session, pay, the protocol's own checks and the cashier page (in Chromium). */
import { chromium, type Browser } from 'playwright-core';
import { signFields } from '../../src/payments/providers/protocol-v2/sign';
import { parseXml, toXml } from '../../src/payments/providers/protocol-v2/xml';
import { withResult } from '@kit/sandbox';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { newOrder, payFixture, sandboxOpenId, sandboxPost, startReceiver, type PayFixture } from '../support/payments';

test('withResult adds sandboxResult to the query, or to the part after # for hash URLs', () => {
  expect(withResult('https://a.example/done', 'paid')).toBe('https://a.example/done?sandboxResult=paid');
  expect(withResult('https://a.example/done?x=1', 'cancel')).toBe('https://a.example/done?x=1&sandboxResult=cancel');
  expect(withResult('https://a.example/#/pages/pay/index?prepayid=abc', 'paid')).toBe('https://a.example/#/pages/pay/index?prepayid=abc&sandboxResult=paid');
  expect(withResult('/h5/#/result', 'paid')).toBe('/h5/#/result?sandboxResult=paid');
});

describeEachBackend('sandbox', (backend) => {
  let kit: TestKit;
  let f: PayFixture;
  let mp: { appid: string; secret: string };

  beforeAll(async () => {
    kit = await startTestKit(backend);
    f = await payFixture(kit);
    mp = { appid: kit.runtime.config.MP_APPID!, secret: kit.runtime.config.MP_SECRET! };
  });
  afterAll(() => kit.close());

  const session = async (q: Record<string, string>) => (await fetch(`${kit.url}/sandbox/sns/jscode2session?${new URLSearchParams(q)}`)).json();

  test('login codes work once; the same user always gets the same open id', async () => {
    const { body } = await sandboxPost(kit.url, '/login', { user: 'zoe' });
    expect(body.code).toMatch(/^[0-9a-f]{32}$/);
    const q = { appid: mp.appid, secret: mp.secret, js_code: body.code, grant_type: 'authorization_code' };
    const first = await session(q);
    expect(first.openid).toMatch(/^o[0-9A-Za-z_-]{27}$/);
    expect(typeof first.session_key).toBe('string');
    expect(await session(q)).toEqual({ errcode: 40029, errmsg: 'invalid code' });
    expect(await sandboxOpenId(kit.url, 'zoe', mp)).toBe(first.openid);
    expect(await sandboxOpenId(kit.url, 'yann', mp)).not.toBe(first.openid);
    const anon = await sandboxPost(kit.url, '/login', {});
    expect(anon.status).toBe(200);
    const code = (await sandboxPost(kit.url, '/login', { user: 'zoe' })).body.code;
    expect((await session({ ...q, js_code: code, secret: 'wrong' })).errcode).toBe(40125);
    expect((await session({ ...q, js_code: code, appid: 'wxother' })).errcode).toBe(40013);
    expect((await session({ ...q, js_code: 'nonsense' })).errcode).toBe(40029);
  });

  test('pay refuses unknown orders and bad bodies with {status:"fail", msg}', async () => {
    expect(await sandboxPost(kit.url, '/pay', { codeUrl: 'weixin://wxpay/bizpayurl?pr=nothing' })).toMatchObject({ status: 404, body: { status: 'fail' } });
    expect(await sandboxPost(kit.url, '/pay', { prepayId: 'wx-unknown' })).toMatchObject({ status: 404, body: { status: 'fail' } });
    expect(await sandboxPost(kit.url, '/pay', {})).toMatchObject({ status: 400, body: { status: 'fail' } });
    const res = await fetch(`${kit.url}/sandbox/pay`, { method: 'POST', body: '[1,' });
    expect(res.status).toBe(400);
  });

  test('the protocol side checks our signature and signs its answers', async () => {
    const key = kit.runtime.config.PAY_SP_KEY!;
    const req: Record<string, string> = {
      appid: kit.runtime.config.PAY_SP_APPID!,
      mch_id: kit.runtime.config.PAY_SP_MCH_ID!,
      sub_mch_id: '1230000109',
      nonce_str: 'n1',
      sign_type: 'MD5',
      out_trade_no: 'NoSuch',
    };
    const post = async (fields: Record<string, string>) =>
      parseXml(await (await fetch(`${kit.url}/sandbox/pay/orderquery`, { method: 'POST', body: toXml(fields) })).text());
    const good = await post({ ...req, sign: signFields(req, key, 'MD5') });
    expect(good).toMatchObject({ return_code: 'SUCCESS', result_code: 'FAIL', err_code: 'ORDERNOTEXIST' });
    expect(good.sign).toBe(signFields(good, key, 'MD5'));
    expect(await post({ ...req, sign: signFields(req, 'wrong-key', 'MD5') })).toMatchObject({ return_code: 'FAIL', return_msg: 'signature error' });
    expect(await post({ ...req, sign: signFields(req, key, 'HMAC-SHA256') })).toMatchObject({ return_code: 'FAIL' });
  });

  describe('cashier page in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
    });
    afterAll(() => browser?.close());

    const appPackage = async (prepayId: string) => {
      const openId = await sandboxOpenId(kit.url, 'cashier-user', mp);
      return (await f.client.socialPay(prepayId, openId)).args.package;
    };

    test('Pay pays and returns with sandboxResult=paid (hash URL); the order finishes', async () => {
      const landing = await startReceiver(() => ({ body: '<html><body>back in the app</body></html>' }));
      const page = await browser.newPage();
      try {
        const prepayId = await newOrder(f, '42.50');
        const pkg = await appPackage(prepayId);
        const ret = `${landing.url}/h5/#/pages/pay/index?prepayid=${prepayId}`;
        await page.goto(`${kit.url}/sandbox/cashier?package=${encodeURIComponent(pkg)}&return=${encodeURIComponent(ret)}`);
        expect(await page.textContent('#sandbox-amount')).toBe('¥42.50');
        expect(await page.textContent('#sandbox-merchant')).toBe('Corner Shop');
        await Promise.all([page.waitForURL(/sandboxResult=paid/), page.click('#sandbox-pay')]);
        expect(page.url()).toBe(`${ret}&sandboxResult=paid`);
        expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      } finally {
        await page.close();
        await landing.close();
      }
    });

    test('Cancel returns with sandboxResult=cancel and pays nothing', async () => {
      const landing = await startReceiver(() => ({ body: 'back' }));
      const page = await browser.newPage();
      try {
        const prepayId = await newOrder(f);
        const pkg = await appPackage(prepayId);
        const ret = `${landing.url}/done?x=1`;
        await page.goto(`${kit.url}/sandbox/cashier?package=${encodeURIComponent(pkg)}&return=${encodeURIComponent(ret)}`);
        await Promise.all([page.waitForURL(/sandboxResult=cancel/), page.click('#sandbox-cancel')]);
        expect(page.url()).toBe(`${ret}&sandboxResult=cancel`);
        expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      } finally {
        await page.close();
        await landing.close();
      }
    });

    test('an unknown package shows a 404 page', async () => {
      const res = await fetch(`${kit.url}/sandbox/cashier?package=prepay_id%3Dwxnothing`);
      expect(res.status).toBe(404);
      expect(await res.text()).toMatch(/Unknown payment/);
    });
  });
});
