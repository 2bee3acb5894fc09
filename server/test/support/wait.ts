/**
 * The one way a test waits (design 7.1): for a condition, looked at again and again. The limit is
 * a fault detector — how long before a condition that never comes is a hang to report — never a
 * performance figure: a test that needs time to pass moves its service's clock instead
 * (`TestKit.advance`), and speed is measured by `npm run bench`.
 */

/** How long a condition may take before the test calls it a hang: generous, for a machine running two suites at once. */
export const FAULT_LIMIT_MS = 60_000;

/** Resolves with `check`'s first truthy answer; throws naming `what` once `limitMs` has passed without one. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  what = 'condition',
  limitMs = FAULT_LIMIT_MS,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await check();
    if (v) return v as T;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${Math.round(limitMs / 1000)} s`);
    // Looking again, not sleeping a duration the test depends on.
    await new Promise((r) => setTimeout(r, 20));
  }
}
