/** The build step of `npm start` and `npm run build`: production mode whatever NODE_ENV says, only when inputs changed, one line each. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTarget, CACHE_DIR, summariseWarnings, type BuildTarget } from './frontends';

describe('buildTarget', () => {
  let dir: string;
  let target: BuildTarget;
  const lines: string[] = [];
  const say = (l: string) => void lines.push(l);
  const savedEnv = process.env.NODE_ENV;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-build-'));
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'src', 'a.txt'), 'one');
    // A real build command: writes the NODE_ENV it was given into its output, and warns once.
    const script = "require('fs').writeFileSync('out.txt', String(process.env.NODE_ENV)); console.log('WARNING in entrypoint size limit: too big')";
    target = {
      name: `test-${path.basename(dir)}`,
      cwd: dir,
      command: [process.execPath, '-e', script],
      inputs: [path.join(dir, 'src')],
      output: path.join(dir, 'out.txt'),
    };
    lines.length = 0;
  });
  afterEach(() => {
    process.env.NODE_ENV = savedEnv;
    fs.rmSync(dir, { recursive: true, force: true });
    for (const ext of ['stamp', 'log']) fs.rmSync(path.join(CACHE_DIR, `${target.name}.${ext}`), { force: true });
  });

  it('builds in production mode even when the caller runs with NODE_ENV=development', async () => {
    process.env.NODE_ENV = 'development';
    expect((await buildTarget(target, { say })).status).toBe('built');
    expect(fs.readFileSync(path.join(dir, 'out.txt'), 'utf8')).toBe('production');
  });

  it('rebuilds only when an input changed, the output is gone, or it is forced; one line each time', async () => {
    expect((await buildTarget(target, { say })).status).toBe('built');
    expect((await buildTarget(target, { say })).status).toBe('fresh');
    fs.writeFileSync(path.join(dir, 'src', 'a.txt'), 'two');
    expect((await buildTarget(target, { say })).status).toBe('built');
    fs.rmSync(path.join(dir, 'out.txt'));
    expect((await buildTarget(target, { say })).status).toBe('built');
    expect((await buildTarget(target, { say, force: true })).status).toBe('built');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(new RegExp(`^${target.name}\\s+built in [0-9.]+ s, 1 warning \\(entrypoint size limit: too big; .*${target.name}\\.log\\)$`));
    expect(lines[1]).toMatch(/up to date$/);
  });

  it('says a build failed, with the last lines of its output, and keeps no stamp', async () => {
    target.command = [process.execPath, '-e', "console.error('Module not found: ./nope'); process.exit(3)"];
    const result = await buildTarget(target, { say });
    expect(result.status).toBe('failed');
    expect(lines[0]).toMatch(/FAILED after [0-9.]+ s \(exit 3\)/);
    expect(lines[0]).toContain('Module not found: ./nope');
    expect(fs.existsSync(path.join(CACHE_DIR, `${target.name}.stamp`))).toBe(false);
  });
});

describe('summariseWarnings', () => {
  it('counts webpack warnings once (its own total), Vite warnings and Node deprecations', () => {
    const taro =
      'WARNING in entrypoint size limit: big\n⚠️ Warnings:\nWARNING in entrypoint size limit: big\nwebpack 5.91.0 compiled with \u001b[1m\u001b[33m1 warning\u001b[39m\u001b[22m in 21707 ms';
    expect(summariseWarnings(taro)).toEqual({ count: 1, samples: ['entrypoint size limit: big'] });
    expect(summariseWarnings('(!) Some chunks are larger than 500 kB\n✓ built in 400ms').count).toBe(1);
    expect(summariseWarnings('vite v8 building\n✓ built in 418ms')).toEqual({ count: 0, samples: [] });
  });
});
