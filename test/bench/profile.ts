/**
 * `node --import tsx test/bench/profile.ts <file.cpuprofile> [--marker <regex>] [--per <n>] [--top <n>]`:
 * a CPU profile of a bench run (`BENCH_CPU_PROF`) summarised by theme and function (`lib/cpu-profile.ts`).
 * `--marker` limits it to the span of samples whose stack names it (for the notifications scenario:
 * `notification-service|callback-delivery`); `--per` divides the times by that many (µs per notification).
 */
import fs from 'node:fs';
import path from 'node:path';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { frameOf, summarise, type CpuProfile } from './lib/cpu-profile';

function main(argv: string[]) {
  const file = argv.find((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--'));
  if (!file) throw new Error('usage: profile.ts <file.cpuprofile> [--marker <regex>] [--per <n>] [--top <n>]');
  const option = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i < 0 ? undefined : argv[i + 1];
  };
  const maps = new Map<string, ReturnType<Parameters<typeof frameOf>[1]>>();
  const sourceMapOf = (url: string) => {
    if (!maps.has(url)) {
      let found: ReturnType<Parameters<typeof frameOf>[1]>;
      if (url.startsWith('file:') && url.includes('/server/dist/')) {
        const js = fileURLToPath(url);
        if (fs.existsSync(`${js}.map`)) {
          const dir = path.dirname(js);
          const root = path.resolve(dir, '../..');
          found = { map: new SourceMap(JSON.parse(fs.readFileSync(`${js}.map`, 'utf8'))), resolve: (s) => path.relative(root, path.resolve(dir, s)) };
        }
      }
      maps.set(url, found);
    }
    return maps.get(url);
  };
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const marker = option('marker');
  const s = summarise(profile, (n) => frameOf(n.callFrame, sourceMapOf), marker ? new RegExp(marker) : undefined);
  const per = Number(option('per') ?? 0);
  const top = Number(option('top') ?? 25);
  const unit = per ? 'µs each' : 'ms';
  const value = (ms: number) => (per ? (ms * 1000) / per : ms).toFixed(per ? 1 : 0).padStart(9);
  const table = (title: string, m: Map<string, number>, n: number) => {
    console.log(`\n${title}`);
    for (const [k, ms] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n))
      console.log(`${((100 * ms) / s.busyMs).toFixed(1).padStart(6)} %${value(ms)} ${unit}  ${k}`);
  };
  console.log(
    `${path.basename(file)}: window ${(s.from / 1000).toFixed(1)}–${(s.to / 1000).toFixed(1)} s of the run, ${Math.round(s.busyMs)} ms busy of ${Math.round(s.windowMs)} ms sampled` +
      (per ? `; ${value(s.busyMs).trim()} µs busy per one of ${per}` : ''),
  );
  table('by theme (innermost frame that has one)', s.themes, 99);
  table('by function (self)', s.functions, top);
  table("by the kit's innermost frame (self time of what it called included)", s.kitCallers, top);
}

main(process.argv.slice(2));
