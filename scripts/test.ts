/**
 * `npm test`: runs PLAN (scripts/test-plan.ts) phase by phase. Steps of one phase run side by side,
 * each one's output kept and printed whole when it ends (so that four logs never interleave); a
 * phase of one step prints as it goes. The first failure stops the run: the steps still running are
 * ended and the exit code is 1. A table of every step's time ends the output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PLAN, type Step } from './test-plan';

const ROOT = path.resolve(__dirname, '..');
const running = new Set<ChildProcess>();
const times: Array<[string, string]> = [];

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

function run(step: Step, stream: boolean): Promise<boolean> {
  const started = Date.now();
  const args = ['run', '-s', step.script, ...(step.args?.length ? ['--', ...step.args] : [])];
  // Its own process group, so that ending a step ends what it started (Jest's workers, Vite, tsc).
  const child = spawn('npm', args, { cwd: ROOT, stdio: stream ? 'inherit' : ['ignore', 'pipe', 'pipe'], detached: true });
  running.add(child);
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  if (!stream) console.log(`▶ ${step.name}`);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      const ok = code === 0;
      times.push([step.name, signal ? `stopped` : `${seconds(started)}${ok ? '' : ' FAILED'}`]);
      if (!stream && (out.trim() || !ok))
        console.log(`\n── ${step.name} (${ok ? 'passed' : signal ? 'stopped' : 'FAILED'}) ${'─'.repeat(40)}\n${out.trimEnd()}`);
      console.log(`${ok ? '✔' : '✘'} ${step.name} ${seconds(started)}`);
      resolve(ok);
    });
  });
}

function stopAll(): void {
  for (const child of running) {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

async function main(): Promise<number> {
  const started = Date.now();
  for (const phase of PLAN) {
    const results = await Promise.all(
      phase.map((step) =>
        run(step, phase.length === 1).then((ok) => {
          if (!ok) stopAll();
          return ok;
        }),
      ),
    );
    if (results.some((ok) => !ok)) return report(started, false);
  }
  return report(started, true);
}

function report(started: number, ok: boolean): number {
  const width = Math.max(...times.map(([name]) => name.length));
  console.log(`\n${times.map(([name, t]) => `  ${name.padEnd(width)}  ${t}`).join('\n')}\n  ${'total'.padEnd(width)}  ${seconds(started)}`);
  return ok ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopAll();
    process.exit(130);
  });
}

void main().then((code) => process.exit(code));
