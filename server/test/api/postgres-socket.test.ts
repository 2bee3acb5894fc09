/**
 * DATABASE_URL in libpq's Unix-socket form (`postgres://user@/db?host=/var/run/postgresql`), which
 * is no WHATWG URL: the service starts on it and serves through real HTTP. The socket's folder is
 * Debian's (`TEST_PG_SOCKET_DIR` for another).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'pg-connection-string';
import { backends } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';

const postgres = backends().find((b) => b.name === 'postgres');
const socketDir = process.env.TEST_PG_SOCKET_DIR ?? '/var/run/postgresql';

(postgres ? describe : describe.skip)('DATABASE_URL through a Unix socket [postgres]', () => {
  let kit: TestKit;
  beforeAll(async () => {
    const env = postgres!.env();
    const tcp = parse(env.DATABASE_URL!);
    const port = tcp.port || '5432';
    const socket = path.join(socketDir, `.s.PGSQL.${port}`);
    if (!fs.existsSync(socket)) throw new Error(`no PostgreSQL socket at ${socket}: set TEST_PG_SOCKET_DIR to the server's unix_socket_directories`);
    const url = `postgres://${encodeURIComponent(tcp.user ?? 'postgres')}@/${encodeURIComponent(tcp.database ?? 'postgres')}?host=${socketDir}&port=${port}`;
    kit = await startTestKit(postgres!, { ...env, DATABASE_URL: url });
  });
  afterAll(async () => {
    await kit?.close();
    await postgres!.cleanup();
  });

  test('the service starts, reports its database healthy and keeps an order', async () => {
    const health = await fetch(`${kit.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok', database: 'ok' });
    const app = await kit.newApp();
    const m = await createMerchants(app.client, app.appId);
    const { prepayId } = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '3.21' });
    expect(await app.client.prepayDetail(prepayId)).toMatchObject({ totalAmount: '3.21', status: 'active' });
  });
});
