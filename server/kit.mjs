/**
 * `npm run kit -- <group> <command> [args]`: the operator's admin command (`server/src/kit/main.ts`),
 * run from the bundle `server/run.mjs` keeps up to date beside the service's.
 */
import { loadKit } from './run.mjs';

try {
  const { runKit } = await loadKit();
  process.exit(await runKit(process.argv.slice(2)));
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
