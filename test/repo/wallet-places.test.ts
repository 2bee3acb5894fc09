/**
 * A wallet lives in its own places (docs/architecture.md, "Adding a wallet"): its provider's folder
 * (`server/src/payments/providers/<wallet>/`), its declaration and looks (`shared/src/wallets/`), a
 * front end's file for its platform's own calls (`<app>/src/wallets/`), its sandbox stand-in
 * (`sandbox/src/<wallet>/`, `sandbox/src/stand-ins/<wallet>.ts`) and the providers' registry line
 * (`server/src/payments/providers/registry.ts`), besides docs and tests. Outside them, the source
 * files (.ts, .tsx, .css; tests aside) that name a wallet in code — an identifier or a string, any
 * case, comments aside — are counted: at most two may name Alipay. Today they are the typed client
 * (`shared/src/client.ts`, which keeps its `alipay*` methods) and the sandbox's stand-in registry
 * (`sandbox/src/stand-ins/index.ts`, its stand-in's line and the development keys it lends tests);
 * the screens, the payer page and its router, the reference, the service and the rest of the
 * sandbox read the wallets' declarations (`@kit/shared/wallets`) and the stand-ins' parts instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { WALLET_LOOKS } from '@kit/shared/wallets/looks';

const ROOT = path.resolve(__dirname, '../..');
const SKIP = new Set(['node_modules', 'dist', '.git', '.cache', '.swc', 'coverage', 'data', 'docs']);

/** Source files of the repository, relative to it: .ts, .tsx and .css, tests and test helpers aside. */
function sourceFiles(dir = ROOT, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    const rel = path.relative(ROOT, full).split(path.sep).join('/');
    if (entry.isDirectory()) {
      // Test folders: the repository's own (`test/`), a package's (`server/test/`, `miniprogram/test/`) and a front end's helpers (`src/test/`).
      if (entry.name === 'test') continue;
      sourceFiles(full, out);
    } else if (/\.(tsx?|css)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** The code of a file without its comments: TypeScript printed without them, CSS without its block comments. */
export function codeOf(file: string, text: string): string {
  if (file.endsWith('.css')) return text.replace(/\/\*[\s\S]*?\*\//g, '');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  return ts.createPrinter({ removeComments: true }).printFile(source);
}

/** A wallet's own places, as path patterns relative to the repository. */
const placesOf = (wallet: string): RegExp[] => [
  new RegExp(`^server/src/payments/providers/${wallet}/`),
  /^shared\/src\/wallets\//,
  /^[a-z-]+\/src\/wallets\//,
  new RegExp(`^sandbox/src/${wallet}/`),
  new RegExp(`^sandbox/src/stand-ins/${wallet}\\.ts$`),
  /^server\/src\/payments\/providers\/registry\.ts$/,
];

/** The source files outside `wallet`'s places that name it in code. */
function namingOutside(wallet: string): string[] {
  const name = new RegExp(wallet, 'i');
  const places = placesOf(wallet);
  return sourceFiles()
    .filter((f) => !places.some((p) => p.test(f)))
    .filter((f) => {
      const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
      return name.test(text) && name.test(codeOf(f, text));
    })
    .sort();
}

describe("a wallet's places", () => {
  it('reads code without its comments, and keeps identifiers and strings', () => {
    expect(codeOf('a.ts', '// Alipay\n/** Alipay too */\nconst x = 1; /* alipay */')).not.toMatch(/alipay/i);
    expect(codeOf('a.ts', 'const alipayWay = 1;')).toMatch(/alipay/i);
    expect(codeOf('a.ts', "const url = 'https://x.test/a'; const w = 'Alipay';")).toMatch(/Alipay/);
    expect(codeOf('a.ts', 'const t = `${1}// not a comment Alipay`;')).toMatch(/Alipay/);
    expect(codeOf('a.tsx', 'export const A = () => <p className="alipay">x</p>;')).toMatch(/alipay/);
    expect(codeOf('a.css', '/* Alipay */ .x { color: red; }')).not.toMatch(/alipay/i);
    expect(codeOf('a.css', '.wallet-Alipay { color: red; }')).toMatch(/Alipay/);
  });

  it('are where the count looks: the wallets declared, each with its provider and stand-in', () => {
    const ids = WALLET_LOOKS.map((w) => w.id);
    expect(ids).toContain('alipay');
    expect(fs.existsSync(path.join(ROOT, 'server/src/payments/providers/alipay'))).toBe(true);
    expect(fs.existsSync(path.join(ROOT, 'sandbox/src/alipay'))).toBe(true);
    expect(fs.existsSync(path.join(ROOT, 'sandbox/src/stand-ins/alipay.ts'))).toBe(true);
    // The count sees the front ends and the service: a file of theirs would be counted.
    const files = sourceFiles();
    for (const f of [
      'pos-display/src/styles.css',
      'console/src/i18n/messages.ts',
      'miniprogram/src/pages/pay/pay-flow.ts',
      'server/src/frontends/mp/router.ts',
    ]) {
      expect(files).toContain(f);
    }
  });

  it('hold Alipay: at most two source files outside them name it in code (the typed client among them)', () => {
    const outside = namingOutside('alipay');
    expect(outside).toContain('shared/src/client.ts');
    // On failure the files are listed: move what names the wallet into its places, or read its declaration.
    expect({ files: outside, atMostTwo: outside.length <= 2 }).toEqual({ files: outside, atMostTwo: true });
  });
});
