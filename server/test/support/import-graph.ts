/**
 * The import graph of a source tree, read with TypeScript's own pre-processor (every `import`,
 * `import type`, `export … from` and `import()`), relative imports only: what `house.test.ts`
 * checks for cycles and for imports that run the wrong way.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export type ImportGraph = Map<string, string[]>;

/** Files under `root` (relative paths), each with the files it imports; tests left out unless `withTests`. */
export function importGraph(root: string, withTests = false): ImportGraph {
  return graphOf(root, [''], {}, withTests);
}

/**
 * The workspace packages' sources: which folder each package name (`@kit/shared`, `@kit/server/…`)
 * stands for, as tsconfig.json's paths and Jest's moduleNameMapper map them.
 */
export const WORKSPACE_SOURCES: Record<string, string> = {
  '@kit/shared': 'shared/src',
  '@kit/server': 'server/src',
  '@kit/sandbox': 'sandbox/src',
  '@kit/web-common': 'web-common/src',
};

/** The source files of every package of the repository at `repoRoot` (paths from it), imports through package names included. */
export function workspaceGraph(repoRoot: string, folders: string[]): ImportGraph {
  return graphOf(repoRoot, folders, WORKSPACE_SOURCES, false);
}

function graphOf(root: string, folders: string[], packages: Record<string, string>, withTests: boolean): ImportGraph {
  const graph: ImportGraph = new Map();
  const files = folders.flatMap((folder) =>
    (fs.readdirSync(path.join(root, folder), { recursive: true }) as string[])
      .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
      .filter((f) => withTests || !/\.test\.tsx?$|\.fixture\.ts$/.test(f))
      .map((f) => path.posix.join(folder, f.split(path.sep).join('/'))),
  );
  const known = new Set(files);
  const target = (file: string, spec: string): string | undefined => {
    if (spec.startsWith('.')) return path.posix.join(path.posix.dirname(file), spec);
    const name = Object.keys(packages).find((p) => spec === p || spec.startsWith(`${p}/`));
    return name && (spec === name ? `${packages[name]}/index` : `${packages[name]}${spec.slice(name.length)}`);
  };
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const deps = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((i) => target(file, i.fileName))
      .map((base) => base && resolve(known, base))
      .filter((f): f is string => f !== undefined);
    graph.set(file, [...new Set(deps)]);
  }
  return graph;
}

function resolve(known: Set<string>, base: string): string | undefined {
  return [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`, base].find((f) => known.has(f));
}

/** Every cycle of the graph, each once, as the list of files around it (Tarjan's strongly connected components). */
export function cycles(graph: ImportGraph): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}
