/**
 * Issue 3 scenarios: channel payment notifications processed per second, callbacks delivered per
 * second to a local receiver, and the time from a payment in the sandbox to a held detail call
 * (4.2, waitForFinish=1) answering `finish`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeQuery, signRequest } from '@kit/shared';
import { signFields } from '../../../server/src/payments/protocol/sign';
import { toXml } from '../../../server/src/payments/protocol/xml';
import { formatChinaTime } from '../../../server/src/payments/protocol/time';
import { percentile, round, type BenchContext, type BenchScenario } from '../harness';

const SOCIAL = { socialAppId: 'wxbenchapp000001', socialMchId: '1230000999' };

/** A receiver answering `OK`, counting what arrives. */
async function startReceiver() {
  const arrivals: Array<{ at: number; prepayId: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        arrivals.push({ at: performance.now(), prepayId: JSON.parse(Buffer.concat(chunks).toString()).prepayId });
      } catch {
        // counted as nothing
      }
      res.end('OK');
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Runs `tasks` with at most `concurrency` at once; returns each task's duration (ms). */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number[]> {
  const took = new Array<number>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await task(i);
        took[i] = performance.now() - t;
      }
    }),
  );
  return took;
}

async function preparedOrders(ctx: BenchContext, n: number, notifyCallbackUrl?: string) {
  const { services } = ctx.runtime;
  await ctx.app.client.setPaymentParams(ctx.merchants.parentId, 'SocialNative', { ...SOCIAL, ...(notifyCallbackUrl ? { notifyCallbackUrl } : {}) });
  const ids: string[] = [];
  await pool(n, 8, async () => {
    const { prepayId } = await services.prepay.create(ctx.app.appId, { subMerchantId: ctx.merchants.subId, totalAmount: '1.00' });
    await services.payments.args.native(ctx.app.appId, prepayId);
    ids.push(prepayId);
  });
  return ids;
}

const notifications: BenchScenario = {
  name: 'payment notifications processed (POST /pay-notify/social/pay)',
  async run(ctx) {
    const n = Number(process.env.BENCH_NOTIFICATIONS ?? 1000);
    const receiver = await startReceiver();
    try {
      const ids = await preparedOrders(ctx, n, `${receiver.url}/cb`);
      const { services, config } = ctx.runtime;
      const key = config.PAY_SP_KEY!;
      // Notifications as the platform signs them, built before the clock starts.
      const bodies = await Promise.all(
        ids.map(async (prepayId, i) => {
          const co = (await services.payments.state(prepayId)).channelOrders[0];
          const m = JSON.parse(co.merchant_json);
          const f: Record<string, string> = {
            return_code: 'SUCCESS', appid: m.appid, mch_id: m.mch_id, sub_mch_id: m.sub_mch_id, nonce_str: `n${i}`, result_code: 'SUCCESS',
            openid: 'obench', trade_type: 'NATIVE', bank_type: 'OTHERS', total_fee: String(co.total_cents), cash_fee: String(co.total_cents),
            fee_type: 'CNY', transaction_id: `4200bench${i}`, out_trade_no: co.out_trade_no, time_end: formatChinaTime(Date.now()),
          };
          f.sign = signFields(f, key, co.sign_type as 'MD5');
          return toXml(f);
        }),
      );
      const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
      const target = new URL(`${ctx.url}/pay-notify/social/pay`);
      let failed = 0;
      const started = performance.now();
      const took = await pool(n, 32, (i) =>
        new Promise<void>((resolve, reject) => {
          const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: { 'content-type': 'text/xml' } }, (res) => {
            if (res.statusCode !== 200) failed++;
            res.resume();
            res.on('end', resolve);
          });
          req.on('error', reject);
          req.end(bodies[i]);
        }),
      );
      const elapsed = performance.now() - started;
      agent.destroy();
      const sorted = took.sort((a, b) => a - b);
      const finished = await ctx.runtime.db.db.selectFrom('prepay_orders').select((eb) => eb.fn.countAll<number>().as('n')).where('prepay_id', 'in', ids).where('status', '=', 'finish').executeTakeFirst();
      ctx.report({
        scenario: this.name,
        rps: Math.round((n / elapsed) * 1000),
        p50: round(percentile(sorted, 50)),
        p99: round(percentile(sorted, 99)),
        extra: { notifications: n, refused: failed, 'orders finished': Number(finished?.n ?? 0), concurrency: 32, note: 'each one: verify, 2 updates + outbox row in one transaction' },
      });
    } finally {
      await receiver.close();
    }
  },
};

const callbacks: BenchScenario = {
  name: 'callbacks delivered to a local receiver',
  async run(ctx) {
    const n = Number(process.env.BENCH_CALLBACKS ?? 2000);
    const receiver = await startReceiver();
    try {
      await ctx.app.client.setPaymentParams(ctx.merchants.parentId, 'SocialNative', { ...SOCIAL, notifyCallbackUrl: `${receiver.url}/cb` });
      const { services } = ctx.runtime;
      const run = `b${Date.now().toString(36)}`;
      // N committed state changes at once, as after a burst of payments.
      await ctx.runtime.db.db.transaction().execute(async (trx) => {
        for (let i = 0; i < n; i++) {
          await services.callbacks.enqueue(trx, {
            prepayId: `${run}${i}`,
            status: 'finish',
            subMerchantId: ctx.merchants.subId,
            merchantId: ctx.merchants.parentId,
            ownerAppId: ctx.app.appId,
            channel: 'SocialNative',
          });
        }
      });
      const started = performance.now();
      services.callbacks.committed();
      const deadline = Date.now() + 120_000;
      while (receiver.arrivals.filter((a) => a.prepayId.startsWith(run)).length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      const mine = receiver.arrivals.filter((a) => a.prepayId.startsWith(run));
      const elapsed = (mine.at(-1)?.at ?? performance.now()) - started;
      const lat = mine.map((a) => a.at - started).sort((a, b) => a - b);
      ctx.report({
        scenario: this.name,
        rps: Math.round((mine.length / elapsed) * 1000),
        p50: round(percentile(lat, 50)),
        p99: round(percentile(lat, 99)),
        extra: { callbacks: n, delivered: mine.length, 'latency from': 'commit of all rows', concurrency: 64 },
      });
    } finally {
      await receiver.close();
    }
  },
};

const wakeLatency: BenchScenario = {
  name: 'sandbox payment → held 4.2 call answers finish',
  async run(ctx) {
    const n = Number(process.env.BENCH_WAKES ?? 200);
    const { services } = ctx.runtime;
    await ctx.app.client.setPaymentParams(ctx.merchants.parentId, 'SocialNative', SOCIAL);
    const orders: Array<{ prepayId: string; codeUrl: string }> = [];
    for (let i = 0; i < n; i++) {
      const { prepayId } = await services.prepay.create(ctx.app.appId, { subMerchantId: ctx.merchants.subId, totalAmount: '2.00' });
      orders.push({ prepayId, codeUrl: (await services.payments.args.native(ctx.app.appId, prepayId)).args.code_url });
    }
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const base = new URL(ctx.url);
    const waits: number[] = [];
    let notFinish = 0;
    for (const o of orders) {
      const path = `/submerchant-pay/prePay/${o.prepayId}`;
      const q = signRequest({ method: 'GET', path, query: { waitForFinish: '1' } }, ctx.app);
      const before = services.events.waiting;
      let paidAt = 0;
      const answered = new Promise<number>((resolve, reject) => {
        http
          .get({ host: base.hostname, port: base.port, path: `${base.pathname.replace(/\/$/, '')}${path}?${encodeQuery(q)}`, agent }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => {
              if (JSON.parse(Buffer.concat(chunks).toString()).status !== 'finish') notFinish++;
              resolve(performance.now());
            });
          })
          .on('error', reject);
      });
      while (services.events.waiting <= before) await new Promise((r) => setImmediate(r));
      paidAt = performance.now();
      const pay = await fetch(`${ctx.url}/sandbox/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ codeUrl: o.codeUrl }) });
      await pay.text();
      waits.push((await answered) - paidAt);
    }
    agent.destroy();
    waits.sort((a, b) => a - b);
    ctx.report({
      scenario: this.name,
      p50: round(percentile(waits, 50)),
      p99: round(percentile(waits, 99)),
      extra: { payments: n, 'answers not finish': notFinish, measured: 'from POST /sandbox/pay (before its notification) to the held answer', target: 'p99 ≤ 100 ms' },
    });
  },
};

export const paymentScenarios: BenchScenario[] = [notifications, callbacks, wakeLatency];
