/**
 * The house's arrows (docs/architecture.md): no import cycle anywhere in the service, and nothing
 * outside `sandbox/` imports it but the few places that compose or mount it.
 */
import path from 'node:path';
import { cycles, importGraph } from '../test/support/import-graph';

const graph = importGraph(path.join(__dirname));

/** Who may import the sandbox: the composition root, the start (its migrations), the app (its routes) and the OpenAPI description of its routes. */
const MAY_IMPORT_SANDBOX = new Set(['services.ts', 'runtime.ts', 'app.ts', 'openapi/paths/sandbox.ts']);

describe('the import graph of server/src', () => {
  it('reads the files and their imports', () => {
    expect(graph.get('services.ts')).toEqual(expect.arrayContaining(['sandbox/sandbox.ts', 'jobs/registry.ts']));
    expect(graph.size).toBeGreaterThan(100);
  });

  it('has no cycle (type-only imports included)', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('keeps production code off the sandbox', () => {
    const offenders = [...graph]
      .filter(([file]) => !file.startsWith('sandbox/') && !MAY_IMPORT_SANDBOX.has(file))
      .flatMap(([file, deps]) => deps.filter((d) => d.startsWith('sandbox/')).map((d) => `${file} -> ${d}`));
    expect(offenders).toEqual([]);
  });

  it('production tests stay off it too: payments, orders, profit sharing import nothing of it', () => {
    const withTests = importGraph(path.join(__dirname), true);
    const offenders = [...withTests]
      .filter(([file]) => /^(payments|orders|profit-sharing|callbacks|jobs|db|reconciliation|chain)\//.test(file))
      .flatMap(([file, deps]) => deps.filter((d) => d.startsWith('sandbox/')).map((d) => `${file} -> ${d}`));
    expect(offenders).toEqual([]);
  });
});
