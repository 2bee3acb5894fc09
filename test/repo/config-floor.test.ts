/**
 * The configuration is the ground floor (docs/architecture.md, "The composition root"): `config.ts`
 * reaches no payment provider, not even for a type — the providers hand their settings sections to
 * the root (`configuration.ts` with the registry's list, or the list a root is given), and the
 * sections' part of `Config` is an interface the registry fills. And the wallet that measures
 * "Adding a wallet" (Acme Pay, `server/test/support/test-wallet/`) lives in test files only: no
 * source file of the product names it in code.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { importGraph, type ImportGraph } from '../../server/test/support/import-graph';

const ROOT = path.resolve(__dirname, '../..');
const SERVER_SRC = path.join(ROOT, 'server/src');

/** Every file `from` reaches through its imports (type-only imports too), itself aside. */
function reachable(graph: ImportGraph, from: string): Set<string> {
  const seen = new Set<string>();
  const walk = (file: string) => {
    for (const dep of graph.get(file) ?? []) {
      if (seen.has(dep)) continue;
      seen.add(dep);
      walk(dep);
    }
  };
  walk(from);
  return seen;
}

const PROVIDERS = /^payments\/providers\//;

describe('config.ts, the ground floor', () => {
  const graph = importGraph(SERVER_SRC);

  it('reaches no provider module, through any chain of imports', () => {
    expect(graph.has('config.ts')).toBe(true);
    expect([...reachable(graph, 'config.ts')].filter((f) => PROVIDERS.test(f))).toEqual([]);
  });

  it('is handed the providers’ sections by the root, which reaches the registry', () => {
    expect([...reachable(graph, 'configuration.ts')]).toEqual(expect.arrayContaining(['config.ts', 'payments/providers/registry.ts']));
  });

  it('finds a provider where one is reached (the check can fail)', () => {
    expect([...reachable(graph, 'runtime.ts')].filter((f) => PROVIDERS.test(f))).toEqual(expect.arrayContaining(['payments/providers/registry.ts']));
  });
});

const SKIP = new Set(['node_modules', 'dist', '.git', '.cache', '.swc', 'coverage', 'data', 'docs', 'test']);

/** The product's source files (.ts, .tsx), tests and test folders aside. */
function productSources(dir = ROOT, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) productSources(full, out);
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$|\.d\.ts$/.test(entry.name)) out.push(path.relative(ROOT, full).split(path.sep).join('/'));
  }
  return out;
}

/** A file's code without its comments. */
const codeOf = (file: string, text: string) =>
  ts
    .createPrinter({ removeComments: true })
    .printFile(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS));

describe('the test-only wallet', () => {
  it('is named in code by no source file of the product', () => {
    const naming = productSources().filter((f) => {
      const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
      return /acme/i.test(text) && /acme/i.test(codeOf(f, text));
    });
    expect(productSources().length).toBeGreaterThan(200);
    expect(naming).toEqual([]);
  });
});
