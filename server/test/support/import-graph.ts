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
  const graph: ImportGraph = new Map();
  const files = (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
    .filter((f) => withTests || !/\.test\.tsx?$|\.fixture\.ts$/.test(f))
    .map((f) => f.split(path.sep).join('/'));
  const known = new Set(files);
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const deps = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((i) => i.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolve(known, path.posix.join(path.posix.dirname(file), spec)))
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
