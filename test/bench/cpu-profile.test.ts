/** The CPU profile summary of `test/bench/profile.ts`: the window, the themes and the kit's frames. */
import { frameOf, summarise, type CpuProfile } from './lib/cpu-profile';

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0, columnNumber: 0 });

/** root → a route of the kit → zod; root → the driver; root → idle; with samples at 1 ms steps. */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 4, 5, 6] },
    { id: 2, callFrame: frame('handler', 'file:///x/server/src/routes/pay-notify.ts'), children: [3] },
    { id: 3, callFrame: frame('_parse', 'file:///x/node_modules/zod/v3/types.js') },
    { id: 4, callFrame: frame('run', 'file:///x/server/src/db/sqlite-dialect.ts') },
    { id: 5, callFrame: frame('(idle)', '') },
    { id: 6, callFrame: frame('early', 'file:///x/server/src/main.ts') },
  ],
  startTime: 0,
  endTime: 8000,
  // early, handler, zod, run, idle, zod, handler, early
  samples: [6, 2, 3, 4, 5, 3, 2, 6],
  timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

describe('CPU profile summary', () => {
  const summary = (marker?: RegExp) => summarise(profile, (n) => frameOf(n.callFrame, () => undefined), marker);

  it('counts a sample for the innermost frame with a theme, and leaves idle time out', () => {
    const s = summary(/pay-notify/);
    // The window runs from the first to the last sample under the route: "early" is outside it.
    expect([s.from, s.to]).toEqual([1, 6]);
    expect(s.busyMs).toBe(5);
    expect(Object.fromEntries(s.themes)).toEqual({ 'validation (zod)': 2, 'statements (driver, Kysely, db/)': 1, 'the kit (other)': 2 });
    // The kit's code that called zod is named with it.
    expect(s.kitCallers.get('handler server/src/routes/pay-notify.ts:1')).toBe(4);
    expect(s.functions.get('_parse file:///x/node_modules/zod/v3/types.js:1')).toBe(2);
  });

  it('without a marker, takes the whole profile', () => {
    expect(summary().busyMs).toBe(6);
  });
});
