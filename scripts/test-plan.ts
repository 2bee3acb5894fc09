/**
 * What `npm test` runs, in two phases (docs/architecture.md, "Tests"):
 *
 * 1. The checks, the builds and the unit group, side by side: each is one process that mostly keeps
 *    one core busy, and none needs another's output.
 * 2. The api and browser groups as one Jest run in parallel workers: their suites mostly wait (on
 *    held calls, retry schedules, order expiry, pages drawing), so several at once fill the cores
 *    that one alone leaves idle. The browser suites use the builds of phase 1.
 */
export interface Step {
  name: string;
  /** npm script and arguments, run as `npm run -s <script> [-- args]`. */
  script: string;
  args?: string[];
}

/** Workers for the api and browser groups together. Each suite takes its own ports, data folders and PostgreSQL schema. */
export const SERVICE_WORKERS = 6;

export const PLAN: Step[][] = [
  [
    { name: 'typecheck', script: 'typecheck' },
    { name: 'lint', script: 'lint' },
    { name: 'build', script: 'build' },
    { name: 'unit', script: 'test:unit' },
  ],
  [{ name: 'api + browser', script: 'test:services', args: [`--maxWorkers=${SERVICE_WORKERS}`] }],
];
