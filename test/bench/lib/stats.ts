/** Percentiles and rounding for bench figures (pure: the bench's unit test covers them). */

/** The p-th percentile (nearest rank) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, idx)];
}

/** Sorts a copy of every sample of every part (several load processes measure one run). */
export function merged(parts: ReadonlyArray<ArrayLike<number>>): Float64Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Float64Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p as ArrayLike<number>, at);
    at += p.length;
  }
  return out.sort();
}

export interface Latency {
  p50: number;
  p99: number;
  count: number;
}

export function latency(samples: ReadonlyArray<ArrayLike<number>> | ArrayLike<number>): Latency {
  const parts = Array.isArray(samples) ? (samples as ReadonlyArray<ArrayLike<number>>) : [samples as ArrayLike<number>];
  const all = merged(parts);
  return { p50: percentile(all, 50), p99: percentile(all, 99), count: all.length };
}

export const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}
