/**
 * The house's arrows (docs/architecture.md): no import cycle anywhere in the service, and the
 * sandbox (the workspace package `@kit/sandbox`) outside it, imported only where it is composed.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { cycles, importGraph } from '../test/support/import-graph';

const graph = importGraph(path.join(__dirname));

/** Who may import the sandbox: the one plug-in point (design 6.2); the rest of the service knows a development plug-in only by its interface. */
const MAY_IMPORT_SANDBOX = new Set(['plugins/load.ts']);

/** The files of server/src (tests too) that import `@kit/sandbox`. */
function sandboxImporters(): string[] {
  return (fs.readdirSync(__dirname, { recursive: true }) as string[])
    .filter((f) => /\.tsx?$/.test(f))
    .filter((f) =>
      ts
        .preProcessFile(fs.readFileSync(path.join(__dirname, f), 'utf8'), true, true)
        .importedFiles.some((i) => i.fileName === '@kit/sandbox' || i.fileName.startsWith('@kit/sandbox/')),
    )
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

/**
 * Where production code may name SANDBOX_ENABLED in code (comments and message text aside): the
 * setting itself and the plug-in point that reads it. Everything else asks the plug-in's hooks
 * (`plugins/dev-plugin.ts`): a provider is handed the settings and gateway of a played platform
 * (`payments/providers/played.ts`) and never asks whether the sandbox is on.
 */
const MAY_READ_SANDBOX_ENABLED = ['config.ts', 'plugins/load.ts'];

/** The files of server/src (tests aside) that name SANDBOX_ENABLED as an identifier or a string (a property read, a key, a `Pick`). */
function sandboxFlagReaders(): string[] {
  const found = new Set<string>();
  for (const f of fs.readdirSync(__dirname, { recursive: true }) as string[]) {
    if (!/\.tsx?$/.test(f) || /\.test\.tsx?$/.test(f)) continue;
    const source = ts.createSourceFile(f, fs.readFileSync(path.join(__dirname, f), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      if ((ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && n.text === 'SANDBOX_ENABLED')
        found.add(f.split(path.sep).join('/'));
      ts.forEachChild(n, visit);
    };
    visit(source);
  }
  return [...found].sort();
}

/**
 * The sandbox is a referee, not a twin (issue 44): it signs, verifies and writes the platforms'
 * formats and bills with rules of its own (`sandbox/src/protocol/`, `sandbox/src/alipay/`), so that
 * a mistake in the kit's is refused rather than shared, and takes from the service only the
 * plug-in contract (`plugins/`): the interface and the types of what it is handed
 * (`dev-plugin.ts`) and the few protocol-free helpers the contract lends (`kit.ts`). The wallets'
 * development keys are the sandbox's own, Alipay's and API v3's alike, handed to the providers it
 * plays as their settings (issue 44.4, "one rule for both").
 */
const PLUGIN_CONTRACT = ['plugins/dev-plugin', 'plugins/kit'];
/** The bound on the contract the sandbox may import. */
const PLUGIN_CONTRACT_AT_MOST = 6;
/** What the sandbox may never take from the service: a protocol's signing, keys, encryption, XML, times, formats or bills. */
const PROTOCOL_RULES =
  /^payments\/providers\/.*(sign|keys|verify|aead|sensitive|xml|time|certificates|refund-info|notification|partner-api|bill|self-signed|client|errors)$/;

/** The `@kit/server/…` modules the sandbox's production files import. */
function serviceModulesOfTheSandbox(): string[] {
  const root = path.join(__dirname, '../../sandbox/src');
  const found = new Set<string>();
  for (const f of fs.readdirSync(root, { recursive: true }) as string[]) {
    if (!/\.tsx?$/.test(f) || /\.test\.tsx?$/.test(f)) continue;
    for (const i of ts.preProcessFile(fs.readFileSync(path.join(root, f), 'utf8'), true, true).importedFiles)
      if (i.fileName.startsWith('@kit/server/')) found.add(i.fileName.slice('@kit/server/'.length));
  }
  return [...found].sort();
}

describe('the import graph of server/src', () => {
  it('reads the files and their imports', () => {
    expect(graph.get('services.ts')).toEqual(expect.arrayContaining(['jobs/registry.ts']));
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

  it('has no sandbox folder: the sandbox is its own package (sandbox/)', () => {
    expect(fs.existsSync(path.join(__dirname, 'sandbox'))).toBe(false);
    expect(fs.existsSync(path.join(__dirname, '../../sandbox/src/index.ts'))).toBe(true);
  });

  it('keeps production code, and its tests, off the sandbox: at most two files import it, the plug-in point among them', () => {
    const importers = sandboxImporters();
    expect(importers.filter((f) => !MAY_IMPORT_SANDBOX.has(f))).toEqual([]);
    expect(importers).toEqual(['plugins/load.ts']);
    expect(MAY_IMPORT_SANDBOX.size).toBeLessThanOrEqual(2);
  });

  it('reads SANDBOX_ENABLED only in the configuration and at the plug-in point: providers are handed what a played platform needs', () => {
    expect(sandboxFlagReaders()).toEqual(MAY_READ_SANDBOX_ENABLED);
  });

  it("keeps the sandbox off the service's protocol rules: it imports the plug-in contract and nothing else of the service", () => {
    const modules = serviceModulesOfTheSandbox();
    expect(modules.filter((m) => PROTOCOL_RULES.test(m))).toEqual([]);
    expect(modules).toEqual(PLUGIN_CONTRACT);
    expect(modules.filter((m) => m.startsWith('plugins/')).length).toBeLessThanOrEqual(PLUGIN_CONTRACT_AT_MOST);
  });
});
