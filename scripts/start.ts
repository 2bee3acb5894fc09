/**
 * `npm start`: builds the front ends the service serves, only if their sources changed since the
 * last build, then runs the compiled service (`server/run.mjs`) in this same process, so that a signal sent to `npm start`
 * (npm passes it on) reaches the service itself. Build lines and the ready banner go to stderr;
 * stdout carries only the service's log lines (JSON, or readable ones on a terminal).
 */
import { parseArgs } from 'node:util';
import { buildTargets, SERVED_TARGETS, stopRunningBuild } from './frontends';

const say = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  // `npm start -- --rebuild` builds the front ends even when their sources did not change.
  const { values } = parseArgs({ options: { rebuild: { type: 'boolean', default: false } } });
  // Asked to stop while building: stop the build too, and do not start.
  const stopBuilding = (signal: NodeJS.Signals) => {
    stopRunningBuild();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('SIGTERM', stopBuilding);
  process.on('SIGINT', stopBuilding);
  const results = await buildTargets(SERVED_TARGETS, { force: values.rebuild, say: (l) => say(`build  ${l}`) });
  process.off('SIGTERM', stopBuilding);
  process.off('SIGINT', stopBuilding);
  if (results.some((r) => r.status === 'failed')) process.exit(1);

  // The compiled service, as `npm run server` runs it (server/run.mjs says why).
  const { loadService } = await import('../server/run.mjs');
  const { runService, readyBanner } = await loadService();
  await runService({
    onReady: (runtime, settings) => say(readyBanner({ ...runtime, settingsFile: settings.file }).join('\n')),
  });
}

main().catch((err) => {
  say(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
