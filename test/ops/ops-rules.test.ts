/**
 * `ops/`: the Prometheus alerting rules and the Grafana dashboard (design 7.7). Every metric they
 * name is one a started service exports at `/metrics`, with the labels it really has; every alert
 * has a summary, a runbook section of docs/operations.md that exists, and a promtool test case;
 * promtool checks the rules, runs their tests and parses the dashboard's queries (skipped, saying
 * so, where promtool is not installed: Debian's `prometheus` package has it; `.ci/run` installs it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { anchorsOf } from '../docs/anchors';

const ROOT = path.resolve(__dirname, '../..');
const RULES = path.join(ROOT, 'ops/prometheus/alerts.yml');
const RULE_TESTS = path.join(ROOT, 'ops/prometheus/alerts.test.yml');
const DASHBOARD = path.join(ROOT, 'ops/grafana/merchant-kit.json');
const read = (file: string) => fs.readFileSync(file, 'utf8');

/** Labels Prometheus gives every series it scrapes, beside the service's own. */
const TARGET_LABELS = ['job', 'instance'];
/** Series Prometheus makes itself for each target: not in `/metrics`. */
const PROMETHEUS_SERIES = new Set(['up']);
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

interface Named {
  /** Metric names the expression reads. */
  metrics: string[];
  /** Label names of each selector `metric{label="…"}`. */
  selectors: Array<{ metric: string; labels: string[] }>;
  /** Label names of `by (…)`, `without (…)`, `on (…)` … */
  grouping: string[];
}

/** What a PromQL expression names: enough of the grammar for the expressions of ops/. */
export function namedIn(expr: string): Named {
  const selectors = [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*\{([^}]*)\}/g)].map((m) => ({
    metric: m[1] ?? '',
    labels: [...m[2].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"/g)].map((l) => l[1]),
  }));
  const grouping = [...expr.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g)].flatMap((m) =>
    m[1]
      .split(',')
      .map((l) => l.trim())
      .filter(Boolean),
  );
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const metrics = [...bare.matchAll(/(?<![\w.$:])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![\w:])(?!\s*\()/g)]
    .map((m) => m[1])
    .filter((w) => !KEYWORDS.has(w.toLowerCase()));
  return { metrics, selectors, grouping };
}

/** The alerts of alerts.yml: name, expression and annotations (the file's own regular layout). */
function alerts(): Array<{ name: string; expr: string; summary?: string; runbook?: string }> {
  return read(RULES)
    .split(/^\s+- alert: /m)
    .slice(1)
    .map((block) => {
      const name = block.split('\n', 1)[0].trim();
      const expr = /expr: \|\n([\s\S]*?)\n\s+for:|expr: \|\n([\s\S]*?)\n\s+labels:|expr: (.+)/.exec(block)!;
      return {
        name,
        expr: (expr[1] ?? expr[2] ?? expr[3]).trim(),
        summary: /summary: (.+)/.exec(block)?.[1],
        runbook: /runbook_url: (.+)/.exec(block)?.[1].trim(),
      };
    });
}

/** The dashboard's queries: its panels' and its variables' (`label_values(metric, label)` read as `metric{label}`). */
function dashboardQueries(): string[] {
  const dash = JSON.parse(read(DASHBOARD)) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>;
    templating: { list: Array<{ query?: string | { query: string } }> };
  };
  const panels = dash.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  const variables = dash.templating.list
    .map((v) => (typeof v.query === 'object' ? v.query.query : undefined))
    .filter((q): q is string => !!q)
    .map((q) => q.replace(/^label_values\(\s*([\w:]+)\s*,\s*(\w+)\s*\)$/, '$1{$2=""}'));
  return [...panels, ...variables];
}

/** A dashboard query with Grafana's variables given values, as Prometheus receives it. */
const asPrometheusGetsIt = (expr: string) => expr.replaceAll('$__rate_interval', '1m').replaceAll('$instance', '.*');

describe('ops/: the alerting rules and the dashboard', () => {
  let kit: TestKit;
  /** Metric families of `/metrics` and the label names of each (declared, or seen on its samples). */
  const families = new Map<string, { type: string; labels: Set<string> }>();

  beforeAll(async () => {
    kit = await startTestKit(backends()[0]);
    await fetch(`${kit.url}/health`);
    const text = await (await fetch(`${kit.url}/metrics`)).text();
    for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(m[1], { type: m[2], labels: new Set() });
    for (const m of text.matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}/gm)) {
      const family = families.get(m[1]) ?? families.get(m[1].replace(/_(bucket|sum|count)$/, ''));
      for (const l of m[2].matchAll(/([a-zA-Z_]\w*)="/g)) family?.labels.add(l[1]);
    }
    for (const metric of kit.runtime.services.metrics.registry.getMetricsAsArray() as Array<{ name: string; labelNames?: string[] }>) {
      for (const l of metric.labelNames ?? []) families.get(metric.name)?.labels.add(l);
    }
  });
  afterAll(async () => {
    await kit?.close();
    await backends()[0].cleanup();
  });

  /** The family a series name belongs to (a histogram's `_bucket`, `_sum` and `_count` are its own). */
  const familyOf = (name: string) => {
    if (families.has(name)) return name;
    const base = name.replace(/_(bucket|sum|count)$/, '');
    return families.get(base)?.type === 'histogram' ? base : undefined;
  };

  const checkNames = (expr: string) => {
    const named = namedIn(expr);
    const unknown = named.metrics.filter((m) => !PROMETHEUS_SERIES.has(m) && !familyOf(m));
    expect({ expr, unknown }).toEqual({ expr, unknown: [] });
    const labelsOf = (metric: string) => {
      const f = familyOf(metric);
      return new Set([...TARGET_LABELS, ...(f ? families.get(f)!.labels : []), ...(metric.endsWith('_bucket') ? ['le'] : [])]);
    };
    for (const s of named.selectors) {
      const wrong = s.labels.filter((l) => !labelsOf(s.metric).has(l));
      expect({ expr, metric: s.metric, wrong }).toEqual({ expr, metric: s.metric, wrong: [] });
    }
    const known = new Set(named.metrics.flatMap((m) => [...labelsOf(m)]));
    expect({ expr, grouping: named.grouping.filter((l) => !known.has(l)) }).toEqual({ expr, grouping: [] });
    return named.metrics;
  };

  it('reads the expressions of every alert and dashboard panel', () => {
    expect(alerts().length).toBeGreaterThanOrEqual(15);
    expect(dashboardQueries().length).toBeGreaterThanOrEqual(30);
    // The reader is strict enough: a misspelt name, a label a metric does not have, a grouping by a label of none.
    expect(namedIn('sum by (route) (rate(kit_http_requests_total{status="502"}[5m])) > 0')).toEqual({
      metrics: ['kit_http_requests_total'],
      selectors: [{ metric: 'kit_http_requests_total', labels: ['status'] }],
      grouping: ['route'],
    });
    expect(namedIn('time() - max by (channel) (kit_reconciliation_last_day_seconds) > 62 * 3600').metrics).toEqual(['kit_reconciliation_last_day_seconds']);
  });

  it('the alerts name only metrics and labels /metrics has', () => {
    const used = new Set(alerts().flatMap((a) => checkNames(a.expr)));
    // What the issue asks operators to be told of, each read from the service's own metric.
    for (const m of [
      'kit_callback_attempts_total',
      'kit_callback_outbox_depth',
      'kit_payment_reconciliations_total',
      'kit_http_requests_total',
      'kit_mp_platform_errors_total',
      'kit_reconciliation_differences_total',
      'kit_reconciliation_last_day_seconds',
      'kit_chain_anchor_lag_seconds',
      'kit_database_up',
      'kit_log_lines_dropped',
      'kit_draining',
    ])
      expect(used).toContain(m);
  });

  it('the dashboard names only metrics and labels /metrics has', () => {
    const used = new Set(dashboardQueries().flatMap((q) => checkNames(q)));
    // The dashboard shows what the alerts read.
    for (const a of alerts()) for (const m of namedIn(a.expr).metrics.filter((n) => !PROMETHEUS_SERIES.has(n))) expect(used).toContain(m);
  });

  it('every alert has a summary, a runbook section of docs/operations.md that exists, and a promtool test', () => {
    const anchors = anchorsOf(read(path.join(ROOT, 'docs/operations.md')));
    const tested = new Set([...read(RULE_TESTS).matchAll(/alertname: (\w+)/g)].map((m) => m[1]));
    for (const a of alerts()) {
      expect({ alert: a.name, summary: !!a.summary }).toEqual({ alert: a.name, summary: true });
      const [file, anchor] = (a.runbook ?? '').split('#');
      expect({ alert: a.name, file }).toEqual({ alert: a.name, file: 'docs/operations.md' });
      expect([...anchors]).toContain(anchor);
      expect(tested).toContain(a.name);
    }
  });
});

/** promtool on PATH, or undefined. */
function findPromtool(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

const PROMTOOL = findPromtool();
const withPromtool = PROMTOOL ? it : it.skip;
const skipped = PROMTOOL ? '' : ' (skipped: promtool is not installed; Debian: apt-get install prometheus)';

describe('promtool', () => {
  const promtool = (...args: string[]) => execFileSync(PROMTOOL!, args, { cwd: path.dirname(RULES), encoding: 'utf8', stdio: 'pipe' });

  withPromtool(`checks the rules${skipped}`, () => {
    expect(promtool('check', 'rules', RULES)).toMatch(/SUCCESS: \d+ rules found/);
  });

  withPromtool(`runs the rules' tests, one or more for each alert${skipped}`, () => {
    expect(promtool('test', 'rules', RULE_TESTS)).toContain('SUCCESS');
  });

  withPromtool(`parses the dashboard's queries${skipped}`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-dashboard-rules-'));
    try {
      const rules = dashboardQueries().map((q, i) => `      - record: dashboard_query_${i}\n        expr: ${JSON.stringify(asPrometheusGetsIt(q))}\n`);
      const file = path.join(dir, 'dashboard.yml');
      fs.writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules.join('')}`);
      expect(promtool('check', 'rules', file)).toContain(`SUCCESS: ${rules.length} rules found`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
