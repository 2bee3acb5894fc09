/**
 * Signed prepay creation (4.1) and signed detail read (4.2) under autocannon, against the bare
 * Express route (DESIGN 4.5: Express's own cost is the per-instance ceiling). With two instances,
 * one instance alone and then both together.
 */
import type { Bench, LoadRun, Scenario } from '../lib/bench';
import type { RequestKind } from '../lib/requests';
import { round } from '../lib/stats';

/** Runs the load on instance 0 and, with two instances, on both; reports a row for each. */
export async function perInstanceAndAggregate(b: Bench, name: string, request: RequestKind, target: { ratio: number; text: string }) {
  const one = await b.load([b.fleet.urls[0]], request, { cpu: () => b.fleet.cpuMs([0]), warmup: true });
  const label = b.fleet.instances.length > 1 ? `${name}, one instance` : name;
  b.report(row(label, one, target.text));
  if (b.fleet.instances.length > 1) {
    const all = await b.load(b.fleet.urls, request);
    b.report({ ...row(`${name}, ${b.fleet.instances.length} instances together`, all, undefined), notes: `${notes(all)}; aggregate / one instance = ${round(all.rate / one.rate, 2)}×` });
  }
  return one;
}

function row(scenario: string, r: LoadRun, target: string | undefined) {
  return { scenario, rate: { value: r.rate, unit: 'req/s' }, p50: r.p50, p99: r.p99, cpuUs: r.cpuUs, target, notes: notes(r) };
}

function notes(r: LoadRun): string {
  return [`${r.answers} answers`, r.non2xx && `${r.non2xx} not 2xx`, r.errors && `${r.errors} errors`].filter(Boolean).join(', ');
}

/** Marks rows of this scenario as meeting the ratio target once the baseline ratios are known. */
function judge(b: Bench, first: number, min: number) {
  for (const r of b.rows.slice(first)) if (r.target && r.ratio !== undefined) r.met = r.ratio >= min && !/not 2xx|errors/.test(r.notes ?? '');
}

const create: Scenario = {
  id: 'create',
  name: 'signed prepay creation (POST /submerchant-pay/)',
  async run(b) {
    const min = b.postgres ? 0.4 : 0.6;
    const first = b.rows.length;
    await b.withBaseline(async () => void (await perInstanceAndAggregate(b, this.name, { kind: 'create', subMerchantId: b.demo.subMerchantId }, { ratio: min, text: `≥ ${min} × bare` })));
    judge(b, first, min);
  },
};

const read: Scenario = {
  id: 'read',
  name: 'signed detail read (GET /submerchant-pay/prePay/<id>)',
  async run(b) {
    const min = b.postgres ? 0.4 : 0.6;
    const merchant = b.driver('merchant');
    const orders = await merchant.call<Array<{ prepayId: string }>>('orders', { url: b.fleet.urls[0], creds: b.creds, subMerchantId: b.demo.subMerchantId, count: 100, native: false });
    await b.release();
    const first = b.rows.length;
    await b.withBaseline(async () => void (await perInstanceAndAggregate(b, this.name, { kind: 'read', prepayIds: orders.map((o) => o.prepayId) }, { ratio: min, text: `≥ ${min} × bare` })));
    judge(b, first, min);
  },
};

export const apiScenarios: Scenario[] = [create, read];
