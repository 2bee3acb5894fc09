/**
 * The yardstick, in its own process like the service: a bare route of the same Express (5) the
 * service runs, answering a small JSON object, with the service's keep-alive setting.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { serve } from '../lib/rpc';

let server: http.Server | undefined;

serve({
  async start(): Promise<{ url: string }> {
    const app = express();
    app.get('/bare', (_req, res) => {
      res.json({ version: 1, status: 'success' });
    });
    server = http.createServer(app);
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  },
});
