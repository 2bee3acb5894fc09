import { systemClock } from '@kit/shared/clock';
import http from 'node:http';
import v8 from 'node:v8';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createHttpServer } from './server';
import { callerGone } from './caller-gone';
import { OrderEvents } from '../orders/order-events';
import { waitFor } from '../../test/support/wait';

async function listen(app: express.Express) {
  const server = createHttpServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** V8's own answer to whether two objects share a hidden class (natives syntax, enabled for this file). */
function sameHiddenClass(): (a: object, b: object) => boolean {
  v8.setFlagsFromString('--allow-natives-syntax');
  return new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
}

describe('createHttpServer', () => {
  it('gives every request and every response of a route one shared hidden class (V8 makes one per object after Object.setPrototypeOf)', async () => {
    const same = sameHiddenClass();
    const app = express();
    const held: Array<[express.Request, express.Response]> = [];
    let third!: () => void;
    const three = new Promise<void>((r) => (third = r));
    app.get('/hold/:id', (req, res) => {
      res.locals.seen = true;
      held.push([req, res]);
      if (held.length === 3) third();
    });
    const { server, url } = await listen(app);
    const agent = new http.Agent({ keepAlive: false });
    const calls = [1, 2, 3].map((i) => http.get(`${url}/hold/${i}?waitForFinish=1`, { agent }).on('error', () => undefined));
    try {
      await three;
      expect(same(held[1][0], held[2][0])).toBe(true);
      expect(same(held[1][1], held[2][1])).toBe(true);
    } finally {
      for (const c of calls) c.destroy();
      server.close();
    }
  });

  it("builds requests and responses on the application's own prototypes, with Express working as usual", async () => {
    const app = express();
    app.set('query parser', 'simple');
    const seen: Array<{ sameRequestProto: boolean; sameResponseProto: boolean; localsProto: unknown }> = [];
    app.use((_req, res, next) => {
      res.locals.requestId = 'r1';
      next();
    });
    app.get('/orders/:id', (req, res) => {
      seen.push({
        sameRequestProto: Object.getPrototypeOf(req) === app.request,
        sameResponseProto: Object.getPrototypeOf(res) === app.response,
        localsProto: Object.getPrototypeOf(res.locals),
      });
      res.status(201).json({ id: req.params.id, q: req.query.q, header: req.get('x-test'), requestId: res.locals.requestId, path: req.path });
    });
    const { server, url } = await listen(app);
    try {
      const res = await fetch(`${url}/orders/A1?q=yes`, { headers: { 'x-test': 'hello' } });
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ id: 'A1', q: 'yes', header: 'hello', requestId: 'r1', path: '/orders/A1' });
      expect(seen).toEqual([{ sameRequestProto: true, sameResponseProto: true, localsProto: Object.prototype }]);
      expect(server.keepAliveTimeout).toBeGreaterThan(55_000);
    } finally {
      server.close();
    }
  });

  it('ends a held wait as soon as its caller hangs up', async () => {
    const events = new OrderEvents(systemClock);
    const app = express();
    let released!: () => void;
    const ended = new Promise<void>((r) => (released = r));
    app.get('/held', (_req, res) => {
      const wait = events.wait('P1', 60_000, callerGone(res));
      void wait.ready.then(() => {
        released();
        if (!res.writableEnded && !res.locals.gone?.aborted) res.json({ status: 'finish' });
      });
    });
    const { server, url } = await listen(app);
    try {
      const req = http.get(`${url}/held`);
      req.on('error', () => undefined);
      await waitFor(() => events.waiting === 1, 'the held call waiting');
      req.destroy();
      await ended;
      expect(events.waiting).toBe(0);
    } finally {
      events.close();
      server.close();
    }
  });
});
