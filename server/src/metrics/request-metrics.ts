/**
 * The per-request counter and duration histogram, kept in plain numbers: a request costs one map
 * lookup by a short string and a few additions. (prom-client's own Counter and Histogram hash the
 * label object on every observation, a cost per request worth avoiding; these are read only when
 * scraped: docs/performance.md, "What the speed tricks buy".)
 * Registered in a prom-client registry as two ordinary metrics, in its exposition format.
 */
import type { Registry } from 'prom-client';

interface Series {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket, not cumulative (summed up when scraped). */
  perBucket: Float64Array;
}

interface Sample {
  metricName?: string;
  labels: Record<string, string>;
  value: number;
}

export class RequestMetrics {
  private readonly series = new Map<string, Series>();

  constructor(
    registry: Registry,
    private readonly names: { counter: string; histogram: string; counterHelp: string; histogramHelp: string },
    private readonly buckets: readonly number[],
  ) {
    const get = (type: 'counter' | 'histogram') => async () => ({
      name: type === 'counter' ? names.counter : names.histogram,
      help: type === 'counter' ? names.counterHelp : names.histogramHelp,
      type,
      aggregator: 'sum',
      values: type === 'counter' ? this.counterSamples() : this.histogramSamples(),
    });
    registry.registerMetric({ name: names.counter, get: get('counter') } as never);
    registry.registerMetric({ name: names.histogram, get: get('histogram') } as never);
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.series.get(key);
    if (!s) {
      s = { labels: { method, route, status: String(status) }, count: 0, sum: 0, perBucket: new Float64Array(this.buckets.length) };
      this.series.set(key, s);
    }
    s.count++;
    s.sum += seconds;
    for (let i = 0; i < this.buckets.length; i++) {
      if (seconds <= this.buckets[i]) {
        s.perBucket[i]++;
        break;
      }
    }
  }

  private counterSamples(): Sample[] {
    return [...this.series.values()].map((s) => ({ labels: s.labels, value: s.count }));
  }

  private histogramSamples(): Sample[] {
    const out: Sample[] = [];
    const name = this.names.histogram;
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += s.perBucket[i];
        out.push({ metricName: `${name}_bucket`, labels: { le: String(le), ...s.labels }, value: cumulative });
      });
      out.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...s.labels }, value: s.count });
      out.push({ metricName: `${name}_sum`, labels: s.labels, value: s.sum });
      out.push({ metricName: `${name}_count`, labels: s.labels, value: s.count });
    }
    return out;
  }
}
