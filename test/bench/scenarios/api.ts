/**
 * Signed prepay creation (4.1) and signed detail read (4.2) under autocannon, against the bare
 * Express route (the service stays on Express, so Express's own cost is the per-instance ceiling).
 * With two instances, one instance alone and then both together.
 */
import type { Bench, LoadRun, Scenario } from '../lib/bench';
import type { RequestKind } from '../lib/requests';
import { round } from '../lib/stats';

/** Runs the load on instance 0 and, with two instances, on both; reports a row for each. */
async function perInstanceAndAggregate(b: Bench, name: string, request: RequestKind) {
  const min = b.postgres ? 0.4 : 0.6;
  const one = await b.load([b.fleet.urls[0]], request, { cpu: () => b.fleet.cpuMs([0]), warmup: true });
  const label = b.fleet.instances.length > 1 ? `${name}, one instance` : name;
  // Judged once the baseline after the scenario is known (Bench.withBaseline): the rate ratio to the bare route.
  b.report({ ...row(label, one, `≥ ${min} × bare`), minRatio: min });
  if (b.fleet.instances.length > 1) {
    const all = await b.load(b.fleet.urls, request);
    b.report({
      ...row(`${name}, ${b.fleet.instances.length} instances together`, all, undefined),
      notes: `${notes(all)}; aggregate / one instance = ${round(all.rate / one.rate, 2)}×`,
    });
  }
  return one;
}

function row(scenario: string, r: LoadRun, target: string | undefined) {
  const failed = r.non2xx > 0 || r.errors > 0;
  return {
    scenario,
    rate: { value: r.rate, unit: 'req/s' },
    p50: r.p50,
    p99: r.p99,
    cpuUs: r.cpuUs,
    target,
    met: target && failed ? false : undefined,
    notes: notes(r),
  };
}

function notes(r: LoadRun): string {
  return [`${r.answers} answers`, r.non2xx && `${r.non2xx} not 2xx`, r.errors && `${r.errors} errors`].filter(Boolean).join(', ');
}

const create: Scenario = {
  id: 'create',
  name: 'signed prepay creation (POST /submerchant-pay/)',
  async run(b) {
    await perInstanceAndAggregate(b, this.name, { kind: 'create', subMerchantId: b.demo.subMerchantId });
  },
};

/** Signed detail reads spread over 100 orders made through the API. */
export async function readRequest(b: Bench): Promise<RequestKind> {
  const merchant = b.driver('merchant');
  const orders = await merchant.call<Array<{ prepayId: string }>>('orders', {
    url: b.fleet.urls[0],
    creds: b.creds,
    subMerchantId: b.demo.subMerchantId,
    count: 100,
    native: false,
  });
  await b.release();
  return { kind: 'read', prepayIds: orders.map((o) => o.prepayId) };
}

const read: Scenario = {
  id: 'read',
  name: 'signed detail read (GET /submerchant-pay/prePay/<id>)',
  async run(b) {
    await perInstanceAndAggregate(b, this.name, await readRequest(b));
  },
};

export const apiScenarios: Scenario[] = [create, read];
