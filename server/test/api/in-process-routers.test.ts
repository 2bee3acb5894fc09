/**
 * The front-end routers call the public API in-process, through the route definitions a signed
 * request reaches (`routes/in-process.ts`): here the POS, console and mini-program routers serve an
 * application whose services never learn the service's own URL, without the runtime, its workers
 * or the sandbox, on a port of the test's own. And the API's rules hold for them as for a signed
 * call: an app that is disabled cannot act through a router either.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KitClient } from '@kit/shared';
import { loadConfig } from '../../src/configuration';
import { createLogger } from '../../src/logger';
import { openServices } from '../../src/runtime';
import { createApp } from '../../src/app';
import { createHttpServer } from '../../src/http/server';
import type { DbHandle } from '../../src/db/connect';
import type { Services } from '../../src/services';
import { TEST_ENV, createMerchants } from '../support/kit';
import { describeEachBackend } from '../support/backends';
import { PageClient } from '../support/page-client';

/** What these tests read of the routers' answers; the rest is matched with `toMatchObject`. */
interface Answer {
  status: number;
  body: { order: { prepayId: string; codeUrlErrorId?: string }; orders: unknown[] };
}

/** A browser of one front end: keeps its login cookie, sends JSON. */
const Page = PageClient<Answer['body']>;

describeEachBackend('front-end routers in-process', (backend) => {
  let db: DbHandle;
  let services: Services;
  let server: http.Server;
  let url: string;
  let appId: string;
  let subId: string;
  let parentId: string;
  let pw: string;

  beforeAll(async () => {
    const config = loadConfig({ ...TEST_ENV, ...backend.env(), SANDBOX_ENABLED: '0' });
    const log = createLogger('silent');
    // The services are told no URL of their own, and nothing starts but this HTTP server.
    ({ db, services } = await openServices(config, log, { selfUrl: () => undefined }));
    server = createHttpServer(createApp(config, services, log, { shuttingDown: false }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const creds = await services.apps.create('test');
    appId = creds.appId;
    ({ subId, parentId, pw } = await createMerchants(new KitClient({ baseUrl: url, ...creds }), appId));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await db.close();
  });

  it('serve the POS, the console and the mini-program without the service knowing its own URL', async () => {
    const pos = new Page(`${url}/pos/api`);
    expect((await pos.call('POST', '/login', { userId: subId, pw })).status).toBe(200);
    const created = await pos.call('POST', '/orders', { amount: '12.30' });
    expect(created.status).toBe(200);
    // 4.1 and 4.2 answered in-process; 4.3 has no channel to ask here (no payment parameters, no sandbox).
    expect(created.body.order).toMatchObject({ amount: '12.30', status: 'active', merchantName: 'Corner Shop', codeUrl: null });
    expect(created.body.order.codeUrlErrorId).toEqual(expect.any(String));
    const { prepayId } = created.body.order;
    expect((await pos.call('GET', `/orders/${prepayId}`)).body.order).toMatchObject({ prepayId, status: 'active' });
    // A held read answers with the order's state when its hold ends.
    expect((await pos.call('GET', `/orders/${prepayId}/wait`)).body).toMatchObject({ version: 1, status: 'active', totalAmount: '12.30' });

    const mp = new Page(`${url}/mp/api`);
    expect((await mp.call('GET', `/orders/${prepayId}`)).body).toMatchObject({ prepayId, status: 'active', totalAmount: '12.30' });

    const desk = new Page(`${url}/console/api`);
    expect((await desk.call('POST', '/login', { userId: parentId, pw })).status).toBe(200);
    const story = await desk.call('GET', `/orders/${prepayId}`);
    expect(story.status).toBe(200);
    expect(story.body.order).toMatchObject({ prepayId, subMerchantId: subId, callbacks: [] });
    expect((await desk.call('GET', '/callbacks')).body).toMatchObject({ status: 'success', callbacks: [] });
  });

  it('refuse to act for a disabled app, as the signed API refuses its signature, and change nothing', async () => {
    const pos = new Page(`${url}/pos/api`);
    expect((await pos.call('POST', '/login', { userId: subId, pw })).status).toBe(200);
    const { prepayId } = (await pos.call('POST', '/orders', { amount: '4.00' })).body.order;
    const before = (await pos.call('GET', '/orders')).body.orders.length;
    await services.apps.setDisabled(appId, true);
    try {
      const refused = await pos.call('POST', '/orders', { amount: '5.00' });
      expect(refused).toMatchObject({ status: 400, body: { status: 'fail', error: 'unknown_app' } });
      expect((await pos.call('GET', '/orders')).body.orders).toHaveLength(before);
      const desk = new Page(`${url}/console/api`);
      expect((await desk.call('POST', '/login', { userId: parentId, pw })).status).toBe(200);
      expect(await desk.call('GET', '/callbacks')).toMatchObject({ status: 400, body: { error: 'unknown_app' } });
      // The payer's page cannot be served an order of a disabled app.
      expect(await new Page(`${url}/mp/api`).call('GET', `/orders/${prepayId}`)).toMatchObject({ status: 404, body: { error: 'not_found' } });
    } finally {
      await services.apps.setDisabled(appId, false);
    }
  });
});
