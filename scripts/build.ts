/**
 * `npm run build [-- --force] [target…]`: the client package and the front ends, each rebuilt only
 * when its inputs changed, one line each (see `frontends.ts`). Exit 1 when a build fails.
 */
import { parseArgs } from 'node:util';
import { buildTargets, TARGETS } from './frontends';

const { values, positionals } = parseArgs({ options: { force: { type: 'boolean', default: false } }, allowPositionals: true });
const names = positionals.length ? positionals : TARGETS.map((t) => t.name);

buildTargets(names, { force: values.force, say: (l) => console.log(l) }).then(
  (results) => process.exit(results.some((r) => r.status === 'failed') ? 1 : 0),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
