/**
 * Chain upload (4.14) with 50-item calls, lookup of 500 items (4.15), and the time from an accepted
 * upload to its confirmation, all through the signed API.
 */
import { Driver, now, sleep } from '../lib/rpc';
import { latency, round } from '../lib/stats';
import type { Bench, Scenario } from '../lib/bench';

const ITEMS_PER_CALL = 50;
let runTag = 0;
const tagOf = (prefix: string) => `${prefix}${Date.now().toString(36)}${runTag++}`;

const upload: Scenario = {
  id: 'upload',
  name: 'chain upload, 50 items per call (POST /common-chain-upload/)',
  async run(b) {
    const min = b.postgres ? 20_000 : 30_000;
    const tags: string[] = [];
    const lookups = Driver.start('merchant');
    try {
      const measure = async (label: string, urls: string[], cpu: () => number) => {
        const tag = tagOf('u');
        tags.push(tag);
        const started = now();
        const r = await b.load(urls, (p, warmup) => ({ kind: 'upload', tag: `${tag}${warmup ? 'w' : ''}p${p}`, items: ITEMS_PER_CALL }), {
          connections: 16,
          cpu,
          warmup: urls.length === 1,
        });
        // The queue drains when the last calls' items are confirmed (on chain).
        const last = r.built.flatMap((built, p) => lastIds(`${tag}p${p}`, built).slice(0, Math.floor(500 / urls.length)));
        let confirmedAfter = NaN;
        for (const deadline = now() + 60_000; now() < deadline; await sleep(100)) {
          const s = await lookups.call<{ confirmed: number; pending: number; failed: number }>('lookup', { url: urls[0], creds: b.creds, ids: last });
          if (s.pending === 0) {
            confirmedAfter = (now() - started) / 1000 - b.opts.duration;
            break;
          }
        }
        const items = r.rate * ITEMS_PER_CALL;
        b.report({
          scenario: label,
          rate: { value: items, unit: 'items/s' },
          p50: r.p50,
          p99: r.p99,
          cpuUs: r.cpuUs,
          target: label === this.name || urls.length === 1 ? `≥ ${min.toLocaleString('en-US')} items/s` : undefined,
          met: urls.length === 1 ? items >= min && r.non2xx === 0 : undefined,
          notes:
            `${Math.round(r.rate)} calls/s, 16 connections; CPU and latency per call; ${Number.isNaN(confirmedAfter) ? 'queue not drained within 60 s' : `queue drained ${round(confirmedAfter, 1)} s after the load`}` +
            (r.non2xx ? `; ${r.non2xx} not 2xx` : ''),
        });
        return r;
      };
      const one = await measure(b.fleet.instances.length > 1 ? `${this.name}, one instance` : this.name, [b.fleet.urls[0]], () => b.fleet.cpuMs([0]));
      if (b.fleet.instances.length > 1) {
        const all = await measure(`${this.name}, ${b.fleet.instances.length} instances together`, b.fleet.urls, () => b.fleet.cpuMs());
        b.rows.at(-1)!.notes += `; aggregate / one instance = ${round(all.rate / one.rate, 2)}×`;
      }
    } finally {
      await lookups.stop();
    }
  },
};

/** Item ids of calls surely answered near the end of a load process's run (its calls are numbered from 0). */
function lastIds(tag: string, built: number): string[] {
  // autocannon keeps up to 16 calls in flight at the end; the ten before those surely answered.
  const ids: string[] = [];
  for (let call = Math.max(0, built - 26); call < Math.max(Math.min(built, 10), built - 16); call++) {
    for (let i = 0; i < ITEMS_PER_CALL; i++) ids.push(`${tag}-${call}-${i}`);
  }
  return ids;
}

const lookup: Scenario = {
  id: 'lookup',
  name: 'chain lookup of 500 items (POST /common-chain-upload/fetchOnChainIds)',
  async run(b) {
    const tag = tagOf('l');
    const ids: string[] = [];
    for (let call = 0; call < 10; call++) for (let i = 0; i < ITEMS_PER_CALL; i++) ids.push(`${tag}-${call}-${i}`);
    const merchant = Driver.start('merchant');
    try {
      await uploadIds(b, merchant, tag);
      for (const deadline = now() + 30_000; now() < deadline; await sleep(100)) {
        const s = await merchant.call<{ pending: number }>('lookup', { url: b.fleet.urls[0], creds: b.creds, ids });
        if (s.pending === 0) break;
      }
    } finally {
      await merchant.stop();
    }
    const body = JSON.stringify({ items: ids.map((id) => ({ type: 'record', id, queryType: 'i2c' })) });
    for (const connections of [1, 4]) {
      const r = await b.load([b.fleet.urls[0]], { kind: 'lookup', body }, { connections, cpu: () => b.fleet.cpuMs([0]) });
      b.report({
        scenario: `${this.name}, ${connections} connection${connections > 1 ? 's' : ''}`,
        rate: { value: r.rate * 500, unit: 'items/s' },
        p50: r.p50,
        p99: r.p99,
        cpuUs: r.cpuUs,
        target: connections === 1 ? 'p99 ≤ 50 ms' : undefined,
        met: connections === 1 ? r.p99 <= 50 && r.non2xx === 0 : undefined,
        notes: `${Math.round(r.rate)} calls/s; CPU per call` + (r.non2xx ? `; ${r.non2xx} not 2xx` : ''),
      });
    }
  },
};

/** Ten 50-item uploads, items named `${tag}-<call>-<i>`. */
async function uploadIds(b: Bench, merchant: Driver, tag: string) {
  await merchant.call('upload', { url: b.fleet.urls[0], creds: b.creds, tag, calls: 10, items: ITEMS_PER_CALL });
}

const confirmed: Scenario = {
  id: 'confirmed',
  name: 'chain upload → confirmed (1-item uploads at random moments, lookup polled every 10 ms)',
  async run(b) {
    const d = Driver.start('merchant');
    try {
      const r = await d.call<{ samples: Float64Array; failed: number }>('confirmed', {
        urls: b.fleet.urls,
        creds: b.creds,
        seconds: b.opts.duration,
        writers: 8,
        tag: tagOf('c'),
      });
      const lat = latency(r.samples);
      b.report({
        scenario: this.name,
        p50: lat.p50,
        p99: lat.p99,
        target: 'p99 ≤ 1.2 s',
        met: lat.p99 <= 1200 && r.failed === 0,
        notes:
          `${lat.count} uploads by 8 writers` +
          (b.fleet.instances.length > 1 ? ', uploaded to one instance and looked up on the other' : '') +
          (r.failed ? `; ${r.failed} failed` : ''),
      });
    } finally {
      await d.stop();
    }
  },
};

export const chainScenarios: Scenario[] = [upload, lookup, confirmed];
