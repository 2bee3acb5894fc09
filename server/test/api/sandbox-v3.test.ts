/**
 * The sandbox's API v3 platform (docs/sandbox.md) through real HTTP, with wechatpay-axios-plugin as
 * the merchant's client: a maintained SDK that shares no code with the kit signs the requests,
 * verifies every answer with the platform key (or certificate), and its `Aes`/`Rsa`/`Formatter`
 * helpers decrypt and verify the notifications. So the sandbox is held to the published rules.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, createPublicKey } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { Aes, Formatter, Rsa, Wechatpay } from 'wechatpay-axios-plugin';
import { chinaDate } from '../../src/reconciliation/china-day';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { sandboxPost } from '../support/payments';
import { sandboxOf, devV3Material, type DevV3Material } from '@kit/sandbox';
import { waitFor } from '../support/wait';

interface Notice {
  headers: Record<string, string>;
  body: string;
}

/** A merchant's notification endpoint: keeps what comes, answers as `answer` says (204 by default). */
async function startNotifyReceiver() {
  const got: Notice[] = [];
  let answer: (n: Notice, i: number) => number = () => 204;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = { headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') };
      got.push(n);
      const status = answer(n, got.length);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 204 ? undefined : status < 300 ? '' : JSON.stringify({ code: 'FAIL', message: 'refused' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`,
    got,
    answerWith(fn: (n: Notice, i: number) => number) {
      answer = fn;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** What the plugin's `Aes`/`Rsa` make of a notification: whether its signature verifies, and its decrypted resource. */
function openWithPlugin(n: Notice, platformPublicKey: string, apiV3Key: string) {
  const h = n.headers;
  const verified = Rsa.verify(Formatter.response(h['wechatpay-timestamp'], h['wechatpay-nonce'], n.body), h['wechatpay-signature'], platformPublicKey);
  const env = JSON.parse(n.body);
  const r = env.resource;
  return { verified, env, resource: JSON.parse(Aes.AesGcm.decrypt(r.ciphertext, apiV3Key, r.nonce, r.associated_data)) };
}

let seq = 0;
const tradeNo = (p = 'V3T') => `${p}${Date.now()}${++seq}`;

describeEachBackend('sandbox API v3', (backend) => {
  let kit: TestKit;
  let dev: DevV3Material;
  let receiver: Awaited<ReturnType<typeof startNotifyReceiver>>;
  let sp: { appid: string; mchid: string };
  const sub = '1230000109';

  beforeAll(async () => {
    kit = await startTestKit(backend, { SANDBOX_NOTIFY_SCHEDULE: '100ms,100ms,200ms', SANDBOX_REFUND_DELAY: '2s', SANDBOX_PROFIT_SHARING_DELAY: '1s' });
    dev = devV3Material(kit.runtime.config.DATA_DIR);
    receiver = await startNotifyReceiver();
    sp = { appid: kit.runtime.config.PAY_SP_APPID!, mchid: kit.runtime.config.PAY_SP_MCH_ID! };
  });
  afterAll(async () => {
    await receiver.close();
    await kit.close();
  });
  afterEach(async () => {
    await sandboxPost(kit.url, '/faults', {});
    receiver.answerWith(() => 204);
  });

  /** The plugin client of the service provider, trusting the platform public key (or the given certificates). */
  const client = (certs?: Record<string, string>) =>
    new Wechatpay({
      mchid: sp.mchid,
      serial: dev.settings.PAY_SP_CERT_SERIAL,
      privateKey: dev.settings.PAY_SP_PRIVATE_KEY,
      certs: certs ?? { [dev.settings.PAY_PLATFORM_PUBLIC_KEY_ID]: dev.settings.PAY_PLATFORM_PUBLIC_KEY },
      baseURL: `${kit.url}/sandbox/`,
    });

  /** A GET signed with the plugin's helpers, answered as it came (a bill file, or an answer we read before trusting its signer). */
  const signedGet = async (url: string, headers: Record<string, string> = {}) => {
    const u = new URL(url);
    const ts = Formatter.timestamp();
    const nonce = Formatter.nonce();
    const sig = Rsa.sign(Formatter.request('GET', `${u.pathname}${u.search}`, ts, nonce), dev.settings.PAY_SP_PRIVATE_KEY);
    const res = await fetch(u, { headers: { ...headers, authorization: Formatter.authorization(sp.mchid, nonce, sig, ts, dev.settings.PAY_SP_CERT_SERIAL) } });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  };

  /** The answer of a call the platform refused (4xx/5xx), as the plugin got it. */
  const refusal = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      const r = (e as { response?: { status: number; data: unknown; headers: Record<string, string> } }).response;
      if (r) return r;
      throw e;
    }
    throw new Error('the call was not refused');
  };

  const place = (kind: 'native' | 'jsapi' | 'app', extra: Record<string, unknown> = {}) =>
    client().v3.pay.partner.transactions[kind].post<any>({
      sp_appid: sp.appid,
      sp_mchid: sp.mchid,
      sub_mchid: sub,
      description: 'Sandbox v3 test',
      out_trade_no: tradeNo(),
      notify_url: receiver.url,
      amount: { total: 1234, currency: 'CNY' },
      ...extra,
    });

  const query = (outTradeNo: string) =>
    client().v3.pay.partner.transactions.outTradeNo._out_trade_no_.get({ out_trade_no: outTradeNo, params: { sp_mchid: sp.mchid, sub_mchid: sub } });

  const notificationsOf = (pred: (resource: any) => boolean) =>
    receiver.got
      .map((n) => ({ n, open: openWithPlugin(n, dev.settings.PAY_PLATFORM_PUBLIC_KEY, dev.settings.PAY_V3_KEY) }))
      .filter((x) => x.open.verified && pred(x.open.resource));

  test('native: code_url, the plugin verifies the answers; paid, a signed encrypted TRANSACTION.SUCCESS comes (and its duplicate), and the query says SUCCESS', async () => {
    const outTradeNo = tradeNo();
    const placed = await client().v3.pay.partner.transactions.native.post<any>({
      sp_appid: sp.appid,
      sp_mchid: sp.mchid,
      sub_mchid: sub,
      description: 'Sandbox v3 test',
      out_trade_no: outTradeNo,
      time_expire: new Date(Date.now() + 600_000 + 8 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, '+08:00'),
      notify_url: receiver.url,
      amount: { total: 1234, currency: 'CNY' },
    });
    expect(placed.status).toBe(200);
    expect(placed.data).toEqual({ code_url: expect.stringMatching(/^weixin:\/\/wxpay\/bizpayurl\?pr=/) });
    expect(placed.headers['request-id']).toMatch(/^[0-9A-F]{32}$/);
    expect(placed.headers['wechatpay-serial']).toBe(dev.settings.PAY_PLATFORM_PUBLIC_KEY_ID);

    const before = await query(outTradeNo);
    expect(before.data).toMatchObject({ sp_mchid: sp.mchid, sub_mchid: sub, out_trade_no: outTradeNo, trade_state: 'NOTPAY', amount: { total: 1234 } });
    expect(before.data.transaction_id).toBeUndefined();

    const paid = await sandboxPost(kit.url, '/pay', { codeUrl: placed.data.code_url });
    expect(paid.status).toBe(200);
    // The notification and one duplicate (SANDBOX_DUPLICATE_NOTIFY=1), each signed when sent.
    const mine = await waitFor(() => {
      const list = notificationsOf((r) => r.out_trade_no === outTradeNo);
      return list.length === 2 && list;
    });
    for (const { n, open } of mine) {
      expect(n.headers['content-type']).toMatch(/^application\/json/);
      expect(open.env).toMatchObject({ event_type: 'TRANSACTION.SUCCESS', resource_type: 'encrypt-resource', resource: { algorithm: 'AEAD_AES_256_GCM' } });
      expect(open.resource).toMatchObject({
        sp_appid: sp.appid,
        sp_mchid: sp.mchid,
        sub_mchid: sub,
        out_trade_no: outTradeNo,
        transaction_id: paid.body.transactionId,
        trade_state: 'SUCCESS',
        trade_type: 'NATIVE',
        amount: { total: 1234, payer_total: 1234, currency: 'CNY' },
      });
      expect(open.resource.success_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00$/);
    }
    expect(mine[0].open.env.id).toBe(mine[1].open.env.id);

    const after = await query(outTradeNo);
    expect(after.data).toMatchObject({ trade_state: 'SUCCESS', transaction_id: paid.body.transactionId, payer: { sp_openid: expect.any(String) } });
  });

  test('jsapi and app answer prepay_id; jsapi without a payer, a foreign sp_mchid and bad amounts are 400 PARAM_ERROR, signed too', async () => {
    const app = await place('app');
    expect(app.data).toEqual({ prepay_id: expect.stringMatching(/^wx/) });
    const js = await place('jsapi', { payer: { sub_openid: 'oSubOpenId0001' } });
    expect(js.data).toEqual({ prepay_id: expect.stringMatching(/^wx/) });

    const noPayer = await refusal(place('jsapi'));
    expect(noPayer.status).toBe(400);
    expect(noPayer.data).toMatchObject({ code: 'PARAM_ERROR', message: expect.stringContaining('payer') });
    expect(noPayer.headers['wechatpay-signature']).toBeTruthy();
    expect(await refusal(place('native', { amount: { total: 0, currency: 'CNY' } }))).toMatchObject({ status: 400, data: { code: 'PARAM_ERROR' } });
    expect(await refusal(place('native', { sp_appid: 'wxsomeoneelse' }))).toMatchObject({ status: 400, data: { code: 'PARAM_ERROR' } });
    expect(await refusal(query('NO-SUCH-ORDER-1'))).toMatchObject({ status: 404, data: { code: 'ORDER_NOT_EXIST' } });
  });

  test('the same out_trade_no with the same fields is the same order; with other fields it is refused', async () => {
    const body = {
      sp_appid: sp.appid,
      sp_mchid: sp.mchid,
      sub_mchid: sub,
      description: 'again',
      out_trade_no: tradeNo(),
      notify_url: receiver.url,
      amount: { total: 500, currency: 'CNY' },
    };
    const a = await client().v3.pay.partner.transactions.app.post<any>(body);
    const b = await client().v3.pay.partner.transactions.app.post<any>(body);
    expect(b.data.prepay_id).toBe(a.data.prepay_id);
    expect(await refusal(client().v3.pay.partner.transactions.app.post<any>({ ...body, amount: { total: 501, currency: 'CNY' } }))).toMatchObject({
      status: 400,
      data: { code: 'INVALID_REQUEST' },
    });
  });

  test('close: 204, then CLOSED, closing again is 204; a paid order is not closed (ORDERPAID)', async () => {
    const outTradeNo = tradeNo();
    const placed = await client().v3.pay.partner.transactions.native.post<any>({
      sp_appid: sp.appid,
      sp_mchid: sp.mchid,
      sub_mchid: sub,
      description: 'to close',
      out_trade_no: outTradeNo,
      notify_url: receiver.url,
      amount: { total: 100, currency: 'CNY' },
    });
    const close = (no: string) =>
      client().v3.pay.partner.transactions.outTradeNo._out_trade_no_.close.post<any>({ sp_mchid: sp.mchid, sub_mchid: sub }, { out_trade_no: no });
    const closed = await close(outTradeNo);
    expect(closed.status).toBe(204);
    expect(closed.headers['wechatpay-signature']).toBeTruthy();
    expect((await query(outTradeNo)).data.trade_state).toBe('CLOSED');
    expect((await close(outTradeNo)).status).toBe(204);
    expect((await sandboxPost(kit.url, '/pay', { codeUrl: placed.data.code_url })).status).toBe(409);

    const paidNo = tradeNo();
    const p2 = await client().v3.pay.partner.transactions.native.post<any>({
      sp_appid: sp.appid,
      sp_mchid: sp.mchid,
      sub_mchid: sub,
      description: 'paid',
      out_trade_no: paidNo,
      notify_url: receiver.url,
      amount: { total: 100, currency: 'CNY' },
    });
    await sandboxPost(kit.url, '/pay', { codeUrl: p2.data.code_url });
    expect(await refusal(close(paidNo))).toMatchObject({ status: 400, data: { code: 'ORDERPAID' } });
    expect(await refusal(close('NO-SUCH-ORDER-2'))).toMatchObject({ status: 404, data: { code: 'ORDER_NOT_EXIST' } });
  });

  test('a request that is tampered with, stale, or names another serial or merchant is refused with 401 SIGN_ERROR', async () => {
    const path = '/v3/pay/partner/transactions/native';
    const body = JSON.stringify({
      sp_appid: sp.appid,
      sp_mchid: sp.mchid,
      sub_mchid: sub,
      description: 'x',
      out_trade_no: tradeNo(),
      notify_url: receiver.url,
      amount: { total: 1 },
    });
    const signedHeader = (o: { ts?: number; serial?: string; mchid?: string; signedBody?: string } = {}) => {
      const ts = o.ts ?? Formatter.timestamp();
      const nonce = Formatter.nonce();
      const sig = Rsa.sign(Formatter.request('POST', path, ts, nonce, o.signedBody ?? body), dev.settings.PAY_SP_PRIVATE_KEY);
      return Formatter.authorization(o.mchid ?? sp.mchid, nonce, sig, ts, o.serial ?? dev.settings.PAY_SP_CERT_SERIAL);
    };
    const send = async (authorization: string | undefined, sent = body) => {
      const res = await fetch(`${kit.url}/sandbox${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(authorization ? { authorization } : {}) },
        body: sent,
      });
      return { status: res.status, body: await res.json(), signature: res.headers.get('wechatpay-signature') };
    };
    expect((await send(signedHeader())).status).toBe(200);
    const refused = [
      await send(signedHeader(), body.replace('"total":1', '"total":2')),
      await send(signedHeader({ ts: Formatter.timestamp() - 600 })),
      await send(signedHeader({ serial: '0123456789ABCDEF0123' })),
      await send(signedHeader({ mchid: '1900009999' })),
      await send(undefined),
    ];
    for (const r of refused) {
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('SIGN_ERROR');
      expect(r.signature).toBeTruthy();
    }
  });

  test('refund: PROCESSING, then a signed encrypted REFUND.SUCCESS and the query says SUCCESS; unknown orders and refunds are 404 RESOURCE_NOT_EXISTS', async () => {
    const outTradeNo = tradeNo();
    const placed = await client().v3.pay.partner.transactions.native.post<any>({
      sp_appid: sp.appid,
      sp_mchid: sp.mchid,
      sub_mchid: sub,
      description: 'to refund',
      out_trade_no: outTradeNo,
      notify_url: receiver.url,
      amount: { total: 800, currency: 'CNY' },
    });
    const notPaid = await refusal(
      client().v3.refund.domestic.refunds.post<any>({
        sub_mchid: sub,
        out_trade_no: outTradeNo,
        out_refund_no: tradeNo('R'),
        amount: { refund: 800, total: 800, currency: 'CNY' },
      }),
    );
    expect(notPaid).toMatchObject({ status: 400, data: { code: 'INVALID_REQUEST' } });
    const paid = await sandboxPost(kit.url, '/pay', { codeUrl: placed.data.code_url });
    const outRefundNo = tradeNo('R');
    const refund = await client().v3.refund.domestic.refunds.post<any>({
      sub_mchid: sub,
      transaction_id: paid.body.transactionId,
      out_refund_no: outRefundNo,
      notify_url: receiver.url,
      amount: { refund: 800, total: 800, currency: 'CNY' },
    });
    expect(refund.data).toMatchObject({ out_refund_no: outRefundNo, out_trade_no: outTradeNo, status: 'PROCESSING', amount: { refund: 800, total: 800 } });
    const again = await client().v3.refund.domestic.refunds.post<any>({
      sub_mchid: sub,
      transaction_id: paid.body.transactionId,
      out_refund_no: outRefundNo,
      notify_url: receiver.url,
      amount: { refund: 800, total: 800, currency: 'CNY' },
    });
    expect(again.data.refund_id).toBe(refund.data.refund_id);

    const [n] = await waitFor(() => {
      const list = notificationsOf((r) => r.out_refund_no === outRefundNo);
      return list.length > 0 && list;
    });
    expect(n.open.env.event_type).toBe('REFUND.SUCCESS');
    expect(n.open.resource).toMatchObject({
      sp_mchid: sp.mchid,
      sub_mchid: sub,
      out_trade_no: outTradeNo,
      transaction_id: paid.body.transactionId,
      refund_id: refund.data.refund_id,
      refund_status: 'SUCCESS',
      amount: { total: 800, refund: 800 },
    });
    const q = await client().v3.refund.domestic.refunds._out_refund_no_.get({ out_refund_no: outRefundNo, params: { sub_mchid: sub } });
    expect(q.data).toMatchObject({ out_refund_no: outRefundNo, status: 'SUCCESS', success_time: expect.stringMatching(/\+08:00$/) });

    expect(
      await refusal(client().v3.refund.domestic.refunds._out_refund_no_.get({ out_refund_no: 'NO-SUCH-REFUND', params: { sub_mchid: sub } })),
    ).toMatchObject({ status: 404, data: { code: 'RESOURCE_NOT_EXISTS' } });
    expect(
      await refusal(
        client().v3.refund.domestic.refunds.post<any>({
          sub_mchid: sub,
          out_trade_no: 'NO-SUCH-ORDER-3',
          out_refund_no: tradeNo('R'),
          amount: { refund: 1, total: 1, currency: 'CNY' },
        }),
      ),
    ).toMatchObject({ status: 404, data: { code: 'RESOURCE_NOT_EXISTS' } });
  });

  test('a notification not acknowledged with 200/204 is sent again on the schedule, re-signed each time', async () => {
    const outTradeNo = tradeNo();
    let refused = 0;
    receiver.answerWith((n) => {
      const open = openWithPlugin(n, dev.settings.PAY_PLATFORM_PUBLIC_KEY, dev.settings.PAY_V3_KEY);
      return open.resource.out_trade_no === outTradeNo && refused++ < 2 ? 500 : 200;
    });
    const placed = await place('native', { out_trade_no: outTradeNo });
    const paid = await sandboxPost(kit.url, '/pay', { codeUrl: placed.data.code_url });
    const mine = await waitFor(() => {
      const list = notificationsOf((r) => r.transaction_id === paid.body.transactionId);
      return list.length >= 4 && list;
    });
    // Two refusals, then acknowledged, then the duplicate: each sending signed on its own.
    expect(new Set(mine.map((m) => m.n.headers['wechatpay-nonce'])).size).toBe(mine.length);
    const prepayId = (await sandboxOf(kit.runtime.services)!.platform['store'].orderByTransaction('social', sp.mchid, paid.body.transactionId))!.prepay_id;
    // Done once the duplicate has been acknowledged too.
    const rows = await waitFor(async () => {
      const r = await sandboxOf(kit.runtime.services)!.notifier.notificationsFor(prepayId);
      return r.every((x) => x.state !== 'pending') && r;
    });
    expect(rows).toEqual([expect.objectContaining({ kind: 'pay', state: 'acked', probe: false })]);
  });

  test('a WECHATPAY/SIGNTEST/ probe goes before the notification when the fault says so; a merchant that verifies refuses it', async () => {
    await sandboxPost(kit.url, '/faults', { v3SignProbes: 1 });
    // This merchant verifies: a notification whose signature does not verify is refused.
    receiver.answerWith((n) => (openWithPlugin(n, dev.settings.PAY_PLATFORM_PUBLIC_KEY, dev.settings.PAY_V3_KEY).verified ? 204 : 401));
    const placed = await place('native');
    const paid = await sandboxPost(kit.url, '/pay', { codeUrl: placed.data.code_url });
    const sandbox = sandboxOf(kit.runtime.services)!;
    const prepayId = (await sandbox.platform['store'].orderByTransaction('social', sp.mchid, paid.body.transactionId))!.prepay_id;
    const rows = await waitFor(async () => {
      const r = await sandbox.notifier.notificationsFor(prepayId);
      return r.length === 2 && r.every((x) => x.state !== 'pending') && r;
    });
    expect(rows.map((r) => [r.probe, r.state]).sort()).toEqual([
      [false, 'acked'],
      [true, 'probe_refused'],
    ]);
    const probes = receiver.got.filter((n) => n.headers['wechatpay-signature'].startsWith('WECHATPAY/SIGNTEST/'));
    expect(probes.length).toBeGreaterThan(0);
  });

  test('certificate mode: /v3/certificates decrypts (plugin Aes) to the platform certificate, and answers name its serial', async () => {
    const certSerial = dev.platform.certificateSerial;
    const certs = { [certSerial]: dev.platform.certificatePem };
    const listed = await client(certs).v3.certificates.get();
    expect(listed.headers['wechatpay-serial']).toBe(certSerial);
    const [entry] = listed.data.data;
    expect(entry.serial_no).toBe(certSerial);
    const e = entry.encrypt_certificate;
    expect(Aes.AesGcm.decrypt(e.ciphertext, dev.settings.PAY_V3_KEY, e.nonce, e.associated_data).trim()).toBe(dev.platform.certificatePem.trim());

    // Public-key mode: a client that trusts the certificate only refuses the answers.
    const body = () => ({
      sp_appid: sp.appid,
      sp_mchid: sp.mchid,
      sub_mchid: sub,
      description: 'certificate mode',
      out_trade_no: tradeNo(),
      notify_url: receiver.url,
      amount: { total: 10, currency: 'CNY' },
    });
    await expect(client(certs).v3.pay.partner.transactions.native.post<any>(body())).rejects.toThrow();
    await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate' });
    const placed = await client(certs).v3.pay.partner.transactions.native.post<any>(body());
    expect(placed.headers['wechatpay-serial']).toBe(certSerial);
    await sandboxPost(kit.url, '/pay', { codeUrl: placed.data.code_url });
    const got = await waitFor(() => receiver.got.find((n) => n.headers['wechatpay-serial'] === certSerial));
    const certKey = createPublicKey(dev.platform.certificatePem).export({ format: 'pem', type: 'spki' }).toString();
    expect(openWithPlugin(got, certKey, dev.settings.PAY_V3_KEY).verified).toBe(true);
  });

  test('a merchant switching to the public key: answers and notifications signed with either key, each verified by the plugin with the key its serial names', async () => {
    const pubId = dev.settings.PAY_PLATFORM_PUBLIC_KEY_ID;
    const certSerial = dev.platform.certificateSerial;
    const certKey = createPublicKey(dev.platform.certificatePem).export({ format: 'pem', type: 'spki' }).toString();
    // The plugin holds both, by serial, as a merchant in the middle of the switch configures it.
    const both = client({ [pubId]: dev.settings.PAY_PLATFORM_PUBLIC_KEY, [certSerial]: dev.platform.certificatePem });
    await sandboxPost(kit.url, '/faults', { v3Serial: 'switching' });
    const serials: string[] = [];
    const outTradeNos: string[] = [];
    for (let i = 0; i < 4; i++) {
      const out = tradeNo('SW');
      // The request names the public-key id, asking for answers signed with it (the platform's switch guide).
      const placed = await both.v3.pay.partner.transactions.native.post<any>(
        {
          sp_appid: sp.appid,
          sp_mchid: sp.mchid,
          sub_mchid: sub,
          description: 'switching',
          out_trade_no: out,
          notify_url: receiver.url,
          amount: { total: 10, currency: 'CNY' },
        },
        { headers: { 'Wechatpay-Serial': pubId } },
      );
      serials.push(placed.headers['wechatpay-serial']);
      outTradeNos.push(out);
      await sandboxPost(kit.url, '/pay', { codeUrl: placed.data.code_url });
    }
    expect(new Set(serials)).toEqual(new Set([pubId, certSerial]));
    const keyOf = (serial: string) => (serial === pubId ? dev.settings.PAY_PLATFORM_PUBLIC_KEY : certKey);
    // Each payment's notification, opened with the key its serial names; every one of them verifies.
    const mine = await waitFor(() => {
      const opened = receiver.got
        .map((n) => ({ serial: n.headers['wechatpay-serial'], open: openWithPlugin(n, keyOf(n.headers['wechatpay-serial']), dev.settings.PAY_V3_KEY) }))
        .filter((x) => outTradeNos.includes(x.open.resource.out_trade_no));
      return new Set(opened.map((x) => x.open.resource.out_trade_no)).size === outTradeNos.length && opened;
    });
    expect(mine.every((x) => x.open.verified)).toBe(true);
    expect(new Set(mine.map((x) => x.serial))).toEqual(new Set([pubId, certSerial]));
  });

  test('certificate rotation: /v3/certificates lists the old and the new certificate; signatures name the new one', async () => {
    const old = { [dev.platform.certificateSerial]: dev.platform.certificatePem };
    await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate', v3Certificates: 'rotated' });
    const listed = await signedGet(`${kit.url}/sandbox/v3/certificates`);
    const entries = JSON.parse(listed.body.toString('utf8')).data as Array<{
      serial_no: string;
      encrypt_certificate: { ciphertext: string; nonce: string; associated_data: string };
    }>;
    expect(entries.map((e) => e.serial_no)[0]).toBe(dev.platform.certificateSerial);
    expect(entries).toHaveLength(2);
    const pems = Object.fromEntries(
      entries.map((e) => [
        e.serial_no,
        Aes.AesGcm.decrypt(e.encrypt_certificate.ciphertext, dev.settings.PAY_V3_KEY, e.encrypt_certificate.nonce, e.encrypt_certificate.associated_data),
      ]),
    );
    const newSerial = entries[1].serial_no;
    expect(listed.headers.get('wechatpay-serial')).toBe(newSerial);
    // The list verifies with the new certificate it carries (plugin Rsa).
    const h = (n: string) => listed.headers.get(n)!;
    expect(
      Rsa.verify(Formatter.response(h('wechatpay-timestamp'), h('wechatpay-nonce'), listed.body.toString('utf8')), h('wechatpay-signature'), pems[newSerial]),
    ).toBe(true);
    // Trusting the old certificate only, the answers do not verify; with the list fetched again, they do.
    await expect(
      client(old).v3.pay.partner.transactions.outTradeNo._out_trade_no_.get({ out_trade_no: 'X1', params: { sp_mchid: sp.mchid, sub_mchid: sub } }),
    ).rejects.toThrow();
    const placed = await client(pems).v3.pay.partner.transactions.app.post<any>({
      sp_appid: sp.appid,
      sp_mchid: sp.mchid,
      sub_mchid: sub,
      description: 'rotated',
      out_trade_no: tradeNo(),
      notify_url: receiver.url,
      amount: { total: 10, currency: 'CNY' },
    });
    expect(placed.headers['wechatpay-serial']).toBe(newSerial);
  });

  test('v3CertificatesSigner: "requested": /v3/certificates is signed with the public key when the request names its id, else with a listed certificate', async () => {
    await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate', v3CertificatesSigner: 'requested' });
    const verifies = (listed: Awaited<ReturnType<typeof signedGet>>, key: string) => {
      const h = (n: string) => listed.headers.get(n)!;
      return Rsa.verify(Formatter.response(h('wechatpay-timestamp'), h('wechatpay-nonce'), listed.body.toString('utf8')), h('wechatpay-signature'), key);
    };
    const pubId = dev.settings.PAY_PLATFORM_PUBLIC_KEY_ID;
    const named = await signedGet(`${kit.url}/sandbox/v3/certificates`, { 'wechatpay-serial': pubId });
    expect(named.status).toBe(200);
    expect(named.headers.get('wechatpay-serial')).toBe(pubId);
    expect(verifies(named, dev.settings.PAY_PLATFORM_PUBLIC_KEY)).toBe(true);
    expect(JSON.parse(named.body.toString('utf8')).data.map((e: { serial_no: string }) => e.serial_no)).toEqual([dev.platform.certificateSerial]);
    // A request naming no key, or the certificate, gets the list signed by the certificate it carries.
    for (const headers of [{}, { 'wechatpay-serial': dev.platform.certificateSerial }] as Array<Record<string, string>>) {
      const listed = await signedGet(`${kit.url}/sandbox/v3/certificates`, headers);
      expect(listed.headers.get('wechatpay-serial')).toBe(dev.platform.certificateSerial);
      expect(verifies(listed, dev.platform.certificatePem)).toBe(true);
    }
  });

  test('profit sharing: receiver with an RSA-OAEP name (plugin Rsa), split, query, unsplit amount, unfreeze; a receiver not added is refused', async () => {
    const placed = await place('native', { settle_info: { profit_sharing: true }, amount: { total: 10000, currency: 'CNY' } });
    const paid = await sandboxPost(kit.url, '/pay', { codeUrl: placed.data.code_url });
    const tx = paid.body.transactionId as string;
    const c = client();
    const added = await c.v3.profitsharing.receivers.add.post(
      {
        sub_mchid: sub,
        appid: sp.appid,
        type: 'MERCHANT_ID',
        account: '1900000200',
        name: Rsa.encrypt('示例商户全称', dev.settings.PAY_PLATFORM_PUBLIC_KEY),
        relation_type: 'PARTNER',
      },
      { headers: { 'Wechatpay-Serial': dev.settings.PAY_PLATFORM_PUBLIC_KEY_ID } },
    );
    expect(added.data).toMatchObject({ sub_mchid: sub, type: 'MERCHANT_ID', account: '1900000200' });
    const store = sandboxOf(kit.runtime.services)!.platform['store'];
    expect((await store.psReceivers(sp.mchid, sub)).find((r) => r.account === '1900000200')?.name).toBe('示例商户全称');
    // A name encrypted to another key, or without naming the key, is refused.
    expect(
      await refusal(
        c.v3.profitsharing.receivers.add.post<any>({
          sub_mchid: sub,
          appid: sp.appid,
          type: 'MERCHANT_ID',
          account: '1900000201',
          name: 'abc',
          relation_type: 'PARTNER',
        }),
      ),
    ).toMatchObject({ status: 400, data: { code: 'PARAM_ERROR' } });
    // CUSTOM needs custom_relation (at most 10 characters), which the answer repeats.
    const custom = { sub_mchid: sub, appid: sp.appid, type: 'PERSONAL_OPENID', account: 'oCustomRelation000000000001', relation_type: 'CUSTOM' };
    expect(await refusal(c.v3.profitsharing.receivers.add.post<any>(custom))).toMatchObject({
      status: 400,
      data: { code: 'PARAM_ERROR', message: expect.stringContaining('custom_relation') },
    });
    expect(await refusal(c.v3.profitsharing.receivers.add.post<any>({ ...custom, custom_relation: '一二三四五六七八九十十' }))).toMatchObject({
      status: 400,
      data: { code: 'PARAM_ERROR', message: expect.stringContaining('custom_relation') },
    });
    expect((await store.psReceivers(sp.mchid, sub)).find((r) => r.account === custom.account)).toBeUndefined();
    expect((await c.v3.profitsharing.receivers.add.post<any>({ ...custom, custom_relation: '加盟店店长' })).data).toMatchObject({
      relation_type: 'CUSTOM',
      custom_relation: '加盟店店长',
    });
    expect((await store.psReceivers(sp.mchid, sub)).find((r) => r.account === custom.account)?.custom_relation).toBe('加盟店店长');

    const outOrderNo = tradeNo('PS');
    const split = await c.v3.profitsharing.orders.post<any>({
      sub_mchid: sub,
      appid: sp.appid,
      transaction_id: tx,
      out_order_no: outOrderNo,
      receivers: [{ type: 'MERCHANT_ID', account: '1900000200', amount: 1000, description: 'share' }],
      unfreeze_unsplit: false,
    });
    expect(split.data).toMatchObject({ out_order_no: outOrderNo, transaction_id: tx, state: 'PROCESSING', receivers: [{ amount: 1000, result: 'PENDING' }] });
    const done = await waitFor(async () => {
      const q = await c.v3.profitsharing.orders._out_order_no_.get({ out_order_no: outOrderNo, params: { sub_mchid: sub, transaction_id: tx } });
      return q.data.state === 'FINISHED' && q.data;
    });
    expect(done.receivers[0]).toMatchObject({ result: 'SUCCESS', finish_time: expect.stringMatching(/\+08:00$/) });
    expect((await c.v3.profitsharing.transactions._transaction_id_.amounts.get({ transaction_id: tx })).data).toEqual({
      transaction_id: tx,
      unsplit_amount: 9000,
    });
    expect(
      await refusal(
        c.v3.profitsharing.orders.post<any>({
          sub_mchid: sub,
          appid: sp.appid,
          transaction_id: tx,
          out_order_no: tradeNo('PS'),
          receivers: [{ type: 'MERCHANT_ID', account: '1900000299', amount: 10, description: 'x' }],
          unfreeze_unsplit: false,
        }),
      ),
    ).toMatchObject({ status: 400, data: { code: 'INVALID_REQUEST' } });
    expect(
      await refusal(
        c.v3.profitsharing.orders.post<any>({
          sub_mchid: sub,
          appid: sp.appid,
          transaction_id: tx,
          out_order_no: tradeNo('PS'),
          receivers: [{ type: 'MERCHANT_ID', account: '1900000200', amount: 5000, description: 'too much' }],
          unfreeze_unsplit: false,
        }),
      ),
    ).toMatchObject({ status: 403, data: { code: 'NOT_ENOUGH' } });
    const unfrozen = await c.v3.profitsharing.orders.unfreeze.post<any>({
      sub_mchid: sub,
      transaction_id: tx,
      out_order_no: tradeNo('UF'),
      description: 'done',
    });
    expect(unfrozen.data).toMatchObject({ state: 'FINISHED', receivers: [] });
    expect((await c.v3.profitsharing.transactions._transaction_id_.amounts.get({ transaction_id: tx })).data.unsplit_amount).toBe(0);
    expect(
      await refusal(c.v3.profitsharing.orders._out_order_no_.get({ out_order_no: 'NO-SUCH-SPLIT', params: { sub_mchid: sub, transaction_id: tx } })),
    ).toMatchObject({ status: 404, data: { code: 'RESOURCE_NOT_EXISTS' } });
    // (`.delete` is the HTTP verb in the plugin's chain: the path is given whole.)
    const removed = await c.client.request('v3/profitsharing/receivers/delete', 'post', {
      sub_mchid: sub,
      appid: sp.appid,
      type: 'MERCHANT_ID',
      account: '1900000200',
    });
    expect(removed.data).toEqual({ sub_mchid: sub, type: 'MERCHANT_ID', account: '1900000200' });
    expect((await store.psReceivers(sp.mchid, sub)).find((r) => r.account === '1900000200')?.removed_at).toEqual(expect.any(Number));
  });

  test('trade bill: a signed answer with the SHA1 of the uncompressed file, a signed download (GZIP), the bill faults, NO_STATEMENT_EXIST', async () => {
    const outTradeNo = tradeNo('BILL');
    const placed = await client().v3.pay.partner.transactions.native.post<any>({
      sp_appid: sp.appid,
      sp_mchid: sp.mchid,
      sub_mchid: sub,
      description: 'Acme, Inc., billed',
      out_trade_no: outTradeNo,
      notify_url: receiver.url,
      amount: { total: 4321, currency: 'CNY' },
    });
    await sandboxPost(kit.url, '/pay', { codeUrl: placed.data.code_url });
    const today = chinaDate(Date.now());
    const bill = async () => (await client().v3.bill.tradebill.get({ params: { bill_date: today, bill_type: 'ALL', tar_type: 'GZIP' } })).data;
    const a = await bill();
    expect(a).toMatchObject({
      hash_type: 'SHA1',
      hash_value: expect.stringMatching(/^[0-9a-f]{40}$/),
      download_url: expect.stringContaining('/sandbox/v3/billdownload/file?token='),
    });
    const file = await signedGet(a.download_url);
    expect(file.status).toBe(200);
    const plain = gunzipSync(file.body);
    const text = plain.toString('utf8');
    expect(createHash('sha1').update(text).digest('hex')).toBe(a.hash_value);
    // The platform's bytes as the plugin reads them: a byte order mark, CRLF, values after a comma and
    // a backtick (so the product name keeps its commas).
    expect(text.startsWith('\uFEFF交易时间,')).toBe(true);
    const row = (Formatter.castCsvBill(plain) as { rows: Array<Record<string, string>> }).rows.find((r) => r['商户订单号'] === outTradeNo);
    expect(row).toMatchObject({ 商品名称: 'Acme, Inc., billed', 订单金额: '43.21', 交易状态: 'SUCCESS' });
    // Unsigned, the download is refused.
    expect((await fetch(a.download_url)).status).toBe(401);

    await sandboxPost(kit.url, '/faults', { billOmitted: [outTradeNo] });
    const omitted = await bill();
    expect(gunzipSync((await signedGet(omitted.download_url)).body).toString('utf8')).not.toContain(outTradeNo);
    await sandboxPost(kit.url, '/faults', { bills: 'creating' });
    expect(await refusal(bill())).toMatchObject({ status: 400, data: { code: 'STATEMENT_CREATING' } });
    await sandboxPost(kit.url, '/faults', {});
    expect(await refusal(client().v3.bill.tradebill.get({ params: { bill_date: '2001-01-01', bill_type: 'ALL' } }))).toMatchObject({
      status: 400,
      data: { code: 'NO_STATEMENT_EXIST' },
    });
  });
});
