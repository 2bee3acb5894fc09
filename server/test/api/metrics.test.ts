/** `GET /metrics`: Prometheus text with request, held-call, chain, callback and reconciliation metrics; a bearer token when METRICS_TOKEN is set. */
import { systemClock } from '@kit/shared/clock';
import { describeEachBackend } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { waitFor } from '../support/wait';
import { i2c, settle } from './chain-helpers';
import { Metrics } from '../../src/metrics/metrics';

const TOKEN = 'metrics-token-0123456789';

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describeEachBackend('metrics', (backend) => {
  let kit: TestKit;
  const scrape = async () => {
    const res = await fetch(`${kit.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  beforeAll(async () => {
    kit = await startTestKit(backend, { ...backend.env(), METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await kit.close();
  });

  it('needs the bearer token when METRICS_TOKEN is set', async () => {
    const none = await fetch(`${kit.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await fetch(`${kit.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
    const text = await scrape();
    expect(text).toContain('# HELP kit_http_requests_total');
    // Every line is a comment or a sample in the exposition format (prom-client spells NaN "Nan", which Prometheus reads alike).
    const bad = text
      .split('\n')
      .filter(
        (l) =>
          l &&
          !l.startsWith('# ') &&
          !/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*\})? (-?[0-9.e+-]+|NaN|Nan|\+Inf|-Inf)$/.test(
            l,
          ),
      );
    expect(bad).toEqual([]);
  });

  it("counts the statements sent to the database, and those sent by name (PostgreSQL's prepared statements)", async () => {
    const { client, appId } = await kit.newApp();
    await createMerchants(client, appId);
    const text = await scrape();
    const total = sample(text, 'kit_db_statements_total')!;
    const named = sample(text, 'kit_db_statements_named_total')!;
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(kit.runtime.db.statements.count);
    expect(named).toBeLessThanOrEqual(total);
    // Only PostgreSQL runs statements by name; the merchants' writes and reads just made include prepared ones.
    if (backend.name === 'postgres') expect(named).toBeGreaterThan(0);
    else expect(named).toBe(0);
  });

  it('counts requests by route pattern and status, with durations, and shows held calls', async () => {
    const { client, appId } = await kit.newApp();
    const { subId } = await createMerchants(client, appId);
    const { prepayId } = await client.createPrepay({ subMerchantId: subId, totalAmount: '1.00' });
    await client.prepayDetail(prepayId);
    await client.call('GET', `/submerchant-pay/prePay/${prepayId}`, { query: { waitForFinish: 'yes' } });

    const held = client.prepayDetail(prepayId, { wait: true });
    await waitFor(async () => sample(await scrape(), 'kit_wait_for_finish_held') === 1, 'the held call in kit_wait_for_finish_held');
    // Measures time: the request durations are the machine's time, so the held call runs out its real hold
    // (WAIT_FOR_FINISH_HOLD, 2 s in tests) on the flowing clock, to be observed above the 1 s bucket below.
    await held;

    const text = await scrape();
    expect(sample(text, 'kit_wait_for_finish_held')).toBe(0);
    expect(sample(text, 'kit_http_requests_total{method="POST",route="/submerchant-pay/",status="200"}')).toBe(1);
    // The route pattern, never the id: one series however many orders.
    expect(sample(text, 'kit_http_requests_total{method="GET",route="/submerchant-pay/prePay/:prepayId",status="200"}')).toBe(2);
    expect(text).not.toContain(prepayId);
    expect(sample(text, 'kit_http_request_duration_seconds_count{method="GET",route="/submerchant-pay/prePay/:prepayId",status="200"}')).toBe(2);
    // The held call took its hold time (WAIT_FOR_FINISH_HOLD is 2 s in tests): one observation above a second.
    expect(sample(text, 'kit_http_request_duration_seconds_bucket{le="1",method="GET",route="/submerchant-pay/prePay/:prepayId",status="200"}')).toBe(1);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('reports chain sealing: items confirmed, seal latency and queue depth', async () => {
    const { client } = await kit.newApp();
    expect(
      (
        await client.call('POST', '/common-chain-upload/', {
          body: {
            items: [
              { type: 'record', args: { id: 'm-1', v: 1 } },
              { type: 'record', args: { id: 'm-2', v: 2 } },
            ],
          },
        })
      ).httpStatus,
    ).toBe(200);
    await settle(client, [i2c('record', 'm-1'), i2c('record', 'm-2')]);
    const text = await scrape();
    expect(sample(text, 'kit_chain_items_sealed_total{result="confirmed"}')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'kit_chain_item_seal_latency_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'kit_chain_seal_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'kit_chain_queue_depth')).toBe(0);
  });

  it('declares the callback and reconciliation metrics the payment code reports', async () => {
    const text = await scrape();
    for (const name of [
      'kit_callback_attempts_total',
      'kit_callback_outbox_depth',
      'kit_payment_reconciliations_total',
      'kit_log_lines_dropped',
      'kit_log_buffer_bytes',
    ]) {
      expect(text).toContain(`# HELP ${name} `);
    }
    kit.runtime.services.metrics.callbackAttempt('delivered');
    kit.runtime.services.metrics.reconciliation('payment_query', 'paid');
    const after = await scrape();
    expect(sample(after, 'kit_callback_attempts_total{outcome="delivered"}')).toBe(1);
    expect(sample(after, 'kit_payment_reconciliations_total{kind="payment_query",outcome="paid"}')).toBe(1);
  });
});

describe('metrics read from the database', () => {
  it('are read at most once per cache period however often the endpoint is scraped', async () => {
    const metrics = new Metrics({ clock: systemClock });
    let reads = 0;
    metrics.countOutboxWith(async () => ++reads && 7);
    for (let i = 0; i < 5; i++) expect(sample(await metrics.text(), 'kit_callback_outbox_depth')).toBe(7);
    expect(reads).toBe(1);
  });

  it('keep the last value when a read fails', async () => {
    const metrics = new Metrics({ clock: systemClock, countMaxAgeMs: 0 });
    let depth: number | Error = 3;
    metrics.countChainQueueWith(async () => {
      if (depth instanceof Error) throw depth;
      return depth;
    });
    expect(sample(await metrics.text(), 'kit_chain_queue_depth')).toBe(3);
    depth = new Error('database down');
    expect(sample(await metrics.text(), 'kit_chain_queue_depth')).toBe(3);
    depth = 5;
    expect(sample(await metrics.text(), 'kit_chain_queue_depth')).toBe(5);
  });
});
