/** `npm start` / `npm run server`: runs the service until SIGTERM or SIGINT, then stops gracefully. */
import { startRuntime } from './runtime';

async function main() {
  const runtime = await startRuntime();
  let signals = 0;
  const stop = (signal: string) => {
    if (++signals > 1) process.exit(1);
    runtime.log.info({ signal }, 'stopping');
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
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
