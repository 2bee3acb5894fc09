/**
 * Runs the service in this process until SIGTERM or SIGINT (`npm run server`, and `npm start`
 * after its builds). Stopping answers held calls, keeps serving for SHUTDOWN_DRAIN with `/health`
 * at 503, then stops listening and lets open requests finish for SHUTDOWN_GRACE; the process ends
 * by both plus `STOP_MARGIN_MS` whatever else happens (a stalled log reader, a database that does
 * not answer). A second signal ends it at once.
 */
import { startRuntime, type Runtime } from './runtime';
import { readSettings, type Settings } from './settings-file';

/** Beyond SHUTDOWN_DRAIN and SHUTDOWN_GRACE: workers finishing their turn, the database closing, the last log lines. */
export const STOP_MARGIN_MS = 5_000;

export interface RunOptions {
  /** Called once the service listens (e.g. to print its addresses for a person), with the settings file it read. */
  onReady?: (runtime: Runtime, settings: Settings) => void;
}

export async function runService(opts: RunOptions = {}): Promise<Runtime> {
  // The environment over the settings file, which every `kit` command reads alike (settings-file.ts).
  const settings = readSettings(process.env);
  const runtime = await startRuntime(settings.env);
  if (settings.file) runtime.log.info({ file: settings.file, names: settings.fromFile }, 'settings file read');
  let signals = 0;
  const stop = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      runtime.log.warn({ signal }, 'stopping at once (second signal)');
      process.exit(1);
    }
    runtime.log.info({ signal }, 'stopping');
    setTimeout(() => process.exit(1), runtime.config.SHUTDOWN_DRAIN + runtime.config.SHUTDOWN_GRACE + STOP_MARGIN_MS).unref();
    runtime.close().then(
      () => process.exit(0),
      (err) => {
        runtime.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  opts.onReady?.(runtime, settings);
  return runtime;
}

/** `npm start` prints it (scripts/start.ts), from the same bundle. */
export { readyBanner } from './ready-banner';
