/**
 * No import cycle in the repository's sources, across packages too (an import of `@kit/shared/…`
 * from the server counts as one of the file it names): a cycle makes the order in which modules
 * load decide what a reader of either sees. server/src/import-graph.test.ts checks the service's
 * own arrows; this checks every package together.
 */
import path from 'node:path';
import { cycles, workspaceGraph } from '../../server/test/support/import-graph';

const ROOT = path.resolve(__dirname, '../..');
const SOURCES = ['shared/src', 'server/src', 'sandbox/src', 'web-common/src', 'pos-display/src', 'console/src', 'miniprogram/src'];

describe('the import graph of every package', () => {
  const graph = workspaceGraph(ROOT, SOURCES);

  it('reads imports through package names', () => {
    expect(graph.get('server/src/services.ts')).toEqual(expect.arrayContaining(['shared/src/clock.ts']));
    expect(graph.get('pos-display/src/state/app.ts')?.some((f) => f.startsWith('web-common/src/'))).toBe(true);
  });

  it('has no cycle (type-only imports included)', () => {
    expect(cycles(graph)).toEqual([]);
  });
});
