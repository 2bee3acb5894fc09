/**
 * The typed client against a tiny local HTTP server: answers are checked against their schemas,
 * `pending` answers that the specification documents are returned rather than thrown, and what the
 * client signs is exactly the path and query it sends (checked with the service's own `verify`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KitClient } from './client';
import { KitApiError } from './errors';
import { parseQueryString, verify } from './signing';

interface Seen {
  method: string;
  url: string;
  body: Buffer;
}

const APP = { appId: 'app-under-test', appSecret: 'secret-under-test-0123456789' };

describe('KitClient typed methods', () => {
  let server: http.Server;
  let origin: string;
  const seen: Seen[] = [];
  /** What the server answers next: HTTP status and JSON body. */
  let answer: { status: number; body: unknown } = { status: 200, body: {} };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body: Buffer.concat(chunks) });
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    seen.length = 0;
  });

  const client = (base = origin) => new KitClient({ baseUrl: base, ...APP, timeoutMs: 5_000 });
  const account = { tokenId: 'PTS', tokenAppId: 'issuer', userAppId: 'wallet', userId: 'alice' };

  /** Verifies a request as the service does: path relative to the base path, raw query pairs, raw body. */
  const verifySeen = (s: Seen, basePath = '', secret = APP.appSecret) => {
    const q = s.url.indexOf('?');
    const path = (q < 0 ? s.url : s.url.slice(0, q)).slice(basePath.length);
    const query = parseQueryString(q < 0 ? '' : s.url.slice(q + 1));
    return { query, result: verify({ method: s.method, path, query, body: s.body }, (id) => (id === APP.appId ? secret : null)) };
  };

  test('a wrongly shaped answer throws KitApiError `unexpected_answer`; the documented shape passes', async () => {
    answer = {
      status: 200,
      body: { version: '1', status: 'success', data: { balance: 12, tokenId: 'PTS', tokenAppId: 'issuer', userAppId: 'wallet', userId: 'alice' } },
    };
    const err = await client()
      .pointsBalance(account)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KitApiError);
    expect(err).toMatchObject({ httpStatus: 200, error: 'unexpected_answer' });
    expect((err as KitApiError).message).toMatch(/data\.balance/);

    // A payment answer with the chain's string version is not a payment answer either.
    answer = { status: 200, body: { version: '1', status: 'success' } };
    await expect(client().refund('Order1', 'token')).rejects.toMatchObject({ error: 'unexpected_answer' });

    answer = {
      status: 200,
      body: { version: '1', status: 'success', data: { balance: '12.00000', tokenId: 'PTS', tokenAppId: 'issuer', userAppId: 'wallet', userId: 'alice' } },
    };
    expect((await client().pointsBalance(account)).data.balance).toBe('12.00000');
  });

  test('a fail answer throws KitApiError with its error id; a documented `pending` is returned', async () => {
    answer = { status: 409, body: { version: '1', status: 'fail', error: 'id_conflict', code: 'E0049', msg: 'taken', traceId: 't' } };
    await expect(client().upload([{ type: 'record', args: { id: 'x' } }])).rejects.toMatchObject({ httpStatus: 409, error: 'id_conflict' });

    answer = { status: 200, body: { version: '1', status: 'pending' } };
    expect(await client().donationOnChainIds('project', ['p-1'])).toEqual({ version: '1', status: 'pending' });
    expect(await client().proof('ab'.repeat(32))).toEqual({ version: '1', status: 'pending' });
    // `pending` where the endpoint promises `success` is a failure, not an answer.
    await expect(client().lookup([{ type: 'record', id: 'x', queryType: 'i2c' }])).rejects.toBeInstanceOf(KitApiError);
  });

  test('the signed path and query are the ones sent: the request verifies with `verify`', async () => {
    answer = { status: 200, body: { version: 1, status: 'success' } };
    const token = 'tok en/+&=é%';
    // Behind a path prefix: the signature covers the path relative to the base URL.
    expect(await client(`${origin}/kit/`).refund('Order1', token)).toEqual({ version: 1, status: 'success' });
    expect(seen).toHaveLength(1);
    expect(seen[0].url.startsWith('/kit/submerchant-pay/refund?')).toBe(true);
    const { query, result } = verifySeen(seen[0], '/kit');
    expect(result).toMatchObject({ ok: true, appId: APP.appId });
    expect(query).toContainEqual(['loginToken', token]);
    expect(JSON.parse(seen[0].body.toString('utf8'))).toEqual({ id: 'Order1' });
    // The check is real: another secret or another path does not verify.
    expect(verifySeen(seen[0], '/kit', 'another-secret').result.ok).toBe(false);
    expect(verifySeen(seen[0]).result.ok).toBe(false);
  });

  test('a signed GET carries its query fields (maxAmount as a number) and verifies', async () => {
    answer = {
      status: 200,
      body: { version: '1', status: 'success', data: { chainLinks: ['kp1.x.y'], uuid: 'u'.repeat(32), maxAmount: '12.50000', expiresAt: 1 } },
    };
    const res = await client().deductionCode({ ...account, userId: 'alice bob/中', maxAmount: 12.5, uuid: 'u'.repeat(32) });
    expect(res.data.chainLinks[0]).toBe('kp1.x.y');
    const { query, result } = verifySeen(seen[0]);
    expect(result.ok).toBe(true);
    expect(seen[0].method).toBe('GET');
    expect(seen[0].url.startsWith('/fungible-token/chainPay?')).toBe(true);
    expect(query).toEqual(
      expect.arrayContaining([
        ['userId', 'alice bob/中'],
        ['maxAmount', '12.5'],
        ['uuid', 'u'.repeat(32)],
      ]),
    );
  });

  test('identical calls never share a signature (the service refuses replays)', async () => {
    answer = { status: 200, body: { version: '1', status: 'pending' } };
    const c = client();
    // A frozen clock: all three calls fall in the same millisecond.
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
    try {
      await Promise.all([0, 1, 2].map(() => c.upload([{ type: 'record', args: { id: 'same' } }])));
    } finally {
      now.mockRestore();
    }
    const signatures = seen.map((s) => verifySeen(s).query.find(([k]) => k === '_s')?.[1]);
    expect(new Set(signatures).size).toBe(3);
    for (const s of seen) expect(verifySeen(s).result.ok).toBe(true);
  });
});
