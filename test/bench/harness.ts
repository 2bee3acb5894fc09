/**
 * Load scenarios on loopback with autocannon. Every figure is printed next to a bare Express JSON
 * route measured in the same run under the same conditions, so ratios, not absolute numbers, are
 * what carries from one machine to another.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import express from 'express';
import { signRequest, encodeQuery, type KitClient } from '@kit/shared';
import type { Runtime } from '../../server/src/runtime';

export interface BenchRow {
  scenario: string;
  rps?: number;
  p50?: number;
  p99?: number;
  ratio?: number;
  extra?: Record<string, string | number>;
}

export interface BenchContext {
  url: string;
  runtime: Runtime;
  app: { appId: string; appSecret: string; client: KitClient };
  merchants: { parentId: string; subId: string; pw: string };
  baseline: { rps: number; p99: number };
  /** Seconds per autocannon run (BENCH_DURATION, default 10). */
  duration: number;
  report(row: BenchRow): void;
}

export interface BenchScenario {
  name: string;
  /** Runs before any load is generated, while the process holds nothing but the service (memory figures). */
  early?: boolean;
  run(ctx: BenchContext): Promise<void>;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  duration: number;
  connections?: number;
  pipelining?: number;
  /** Builds each request; called once per request sent. */
  next?: () => { method: string; path: string; body?: string; headers?: Record<string, string> };
  method?: string;
  path?: string;
}

/** Runs autocannon and returns requests/s and latency percentiles (ms). */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  const target = new URL(opts.url);
  const result = await autocannon({
    // autocannon ignores a separate `path` option: the path goes into the URL.
    url: opts.path ? `${target.origin}${opts.path}` : target.origin,
    connections: opts.connections ?? 50,
    pipelining: opts.pipelining ?? 1,
    duration: opts.duration,
    method: (opts.method ?? 'GET') as 'GET',
    requests: opts.next
      ? [
          {
            setupRequest: (req: Record<string, unknown>) => {
              const r = opts.next!();
              return { ...req, method: r.method, path: `${target.pathname.replace(/\/$/, '')}${r.path}`, body: r.body, headers: { ...(r.headers ?? {}) } };
            },
          },
        ]
      : undefined,
  } as autocannon.Options);
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Pre-signs requests so that signing cost stays out of the measured loop (each signature is used once). */
export function presign(
  count: number,
  creds: { appId: string; appSecret: string },
  build: (i: number) => { method: string; path: string; query?: Record<string, string>; body?: unknown },
): Array<{ method: string; path: string; body?: string; headers?: Record<string, string> }> {
  const out = new Array(count);
  const t = Date.now();
  for (let i = 0; i < count; i++) {
    const r = build(i);
    const body = r.body === undefined ? undefined : JSON.stringify(r.body);
    // Distinct _t per request keeps every signature unique for the replay guard.
    const q = signRequest({ method: r.method, path: r.path, query: r.query, body }, creds, t + i);
    out[i] = {
      method: r.method,
      path: `${r.path}?${encodeQuery(q)}`,
      body,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
    };
  }
  return out;
}

/** A cycling cursor over pre-built requests. */
export function cycle<T>(items: T[]): () => T {
  let i = 0;
  return () => items[i++ % items.length];
}

/** The yardstick: a bare route of the same Express (5) the service runs, answering a small JSON object. */
export async function startBaseline(): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.get('/bare', (_req, res) => {
    res.json({ version: 1, status: 'success' });
  });
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, idx)];
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
