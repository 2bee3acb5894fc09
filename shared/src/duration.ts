/** Durations as settings and tests write them: `500ms`, `15s`, `3m`, `2h`, `1d` or plain milliseconds. */
export function parseDuration(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m) throw new Error(`"${text}" is not a duration such as 500ms, 15s, 3m or 2h`);
  const factor = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 'ms') as 'ms'];
  return Math.round(Number(m[1]) * factor);
}
