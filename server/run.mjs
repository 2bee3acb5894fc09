/**
 * `npm run server` and `npm start` run the service from compiled JavaScript: `server/src` with the
 * sources of `@kit/shared` bundled into `server/dist/main.js` (npm packages stay outside it, loaded
 * from node_modules as usual), as ES modules split into chunks. The sandbox (`@kit/sandbox`, loaded
 * by the service only when SANDBOX_ENABLED) is `server/dist/sandbox.js`, outside the static import
 * graph of `main.js` and `kit.js` (test/ops/production-build.test.ts checks it). Running it without a TypeScript loader saves the loader's second V8
 * isolate and the source maps of every module it compiled, about 35 MB of a process's memory
 * (docs/performance.md). The `kit` command is bundled beside it into `server/dist/kit.js`
 * (`npm run kit` runs `server/kit.mjs`): a command then starts in a fraction of the time tsx takes
 * to compile the sources it loads.
 *
 * The bundles are rebuilt here when any of the files it was built from changed (their content hashes
 * are kept beside it), so a checkout that moved on never runs stale code; `npm run build` builds it
 * ahead, for an image whose file system is read-only at run time. Several instances starting at once
 * from one checkout each write their own file and rename it into place.
 *
 * `node server/run.mjs` runs the service; `node server/run.mjs --build` only brings the bundle up to date.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SERVER = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(SERVER);
const BUNDLE = path.join(SERVER, 'dist/main.js');
/** The `kit` command (`server/src/kit/main.ts`), bundled beside the service from the same sources (`server/kit.mjs` runs it). */
const KIT_BUNDLE = path.join(SERVER, 'dist/kit.js');
/** The bundle's inputs (paths relative to the root) with their content hashes, from its last build. */
const INPUTS = path.join(SERVER, 'dist/main.inputs.json');
const require = createRequire(import.meta.url);

/** Bumped when the build options below change, so that a bundle built with the old ones is rebuilt. */
const RECIPE = 4;

/**
 * Files that shape the bundle without being in esbuild's list of inputs: the tsconfig it resolves
 * `@kit/*` paths through, and the package files the list of external packages comes from.
 */
const SETTINGS = ['tsconfig.json', 'server/package.json', 'shared/package.json', 'sandbox/package.json'];

/** A file's content hash; null when it does not exist (a file that appears later changes it). */
function digest(file) {
  try {
    return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw e;
  }
}

function fresh() {
  try {
    const recorded = JSON.parse(fs.readFileSync(INPUTS, 'utf8'));
    if (recorded.recipe !== RECIPE || !fs.existsSync(BUNDLE) || !fs.existsSync(KIT_BUNDLE)) return false;
    return Object.entries(recorded.files).every(([rel, hash]) => digest(path.join(ROOT, rel)) === hash);
  } catch {
    return false;
  }
}

/** Whether the bundle is up to date; otherwise builds it. True when it built. */
export async function ensureBundle() {
  if (fresh()) return false;
  const esbuild = require('esbuild');
  const external = (pkg) => Object.keys(require(path.join(ROOT, pkg, 'package.json')).dependencies ?? {}).filter((d) => !d.startsWith('@kit/'));
  const result = await esbuild.build({
    entryPoints: { main: path.join(SERVER, 'src/service.ts'), kit: path.join(SERVER, 'src/kit/main.ts'), sandbox: path.join(ROOT, 'sandbox/src/index.ts') },
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    // ES modules split into chunks: the sandbox, imported lazily by the one plug-in point
    // (`src/plugins/load.ts`), is a chunk of its own that only a service with SANDBOX_ENABLED loads;
    // the modules it shares with the service are one instance in a shared chunk (one `KitError`
    // class, one metrics registry), never a copy inside the sandbox's.
    format: 'esm',
    splitting: true,
    chunkNames: '[name]-[hash]',
    // What the sources expect of CommonJS: `require` (for `require.resolve`) and `__dirname`, which
    // is `server/dist` for every module as it was in the single CommonJS bundle.
    banner: {
      js: [
        "import { createRequire as __kitCreateRequire } from 'node:module';",
        "import { fileURLToPath as __kitFileURLToPath } from 'node:url';",
        'const require = __kitCreateRequire(import.meta.url);',
        'const __filename = __kitFileURLToPath(import.meta.url);',
        "const __dirname = __kitFileURLToPath(new URL('.', import.meta.url)).replace(/[\\/]$/, '');",
      ].join('\n'),
    },
    // `@kit/shared` is compiled from its sources (its `source` export condition), like under tsx.
    conditions: ['source'],
    // The workspace packages from their sources whatever tsconfig.json says (a copy of the checkout may have none).
    alias: { '@kit/server': './server/src', '@kit/sandbox': './sandbox/src/index.ts' },
    external: [...external('server'), ...external('shared'), ...external('sandbox')],
    // Class and function names stay what the sources say: in stack traces, logs and error types.
    keepNames: true,
    // Read only under `--enable-source-maps` (docs/operations.md): then stack traces name the TypeScript lines.
    sourcemap: 'linked',
    metafile: true,
    write: false,
    outdir: path.dirname(BUNDLE),
    logLevel: 'warning',
  });
  await esbuild.stop?.();
  const files = Object.fromEntries(
    Object.keys(result.metafile.inputs)
      .filter((rel) => !rel.includes('node_modules/') || rel.includes('node_modules/@kit/'))
      .concat(SETTINGS)
      .map((rel) => [rel, digest(path.join(ROOT, rel))]),
  );
  // Each file is written under a name of this process's and renamed into place: another instance
  // starting at the same moment sees either the old file or the new one, never half of one.
  const place = (file, contents) => {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, contents);
    fs.renameSync(tmp, file);
  };
  fs.mkdirSync(path.dirname(BUNDLE), { recursive: true });
  // The bundles are ES modules (`.js` under a `"type": "module"` of their own).
  place(path.join(path.dirname(BUNDLE), 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
  for (const out of result.outputFiles) place(out.path, out.contents);
  place(INPUTS, JSON.stringify({ recipe: RECIPE, files }, null, 1));
  return true;
}

/** The compiled service module (`server/src/service.ts`): `runService` and what it exports. */
export async function loadService() {
  await ensureBundle();
  // A TypeScript loader (`npm start` runs under tsx) turns source maps on for everything loaded
  // after it; the bundle's would cost about 20 MB. They stay on only when asked for.
  process.setSourceMapsEnabled(sourceMapsAsked());
  return import(pathToFileURL(BUNDLE).href);
}

/** The compiled `kit` command module (`server/src/kit/main.ts`): `runKit`. */
export async function loadKit() {
  await ensureBundle();
  process.setSourceMapsEnabled(sourceMapsAsked());
  return import(pathToFileURL(KIT_BUNDLE).href);
}

function sourceMapsAsked() {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes('--enable-source-maps');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const buildOnly = process.argv.includes('--build');
  const main = buildOnly ? ensureBundle() : loadService().then(({ runService }) => runService());
  main.catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
