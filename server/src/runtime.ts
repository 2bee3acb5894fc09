/**
 * Starts the whole service in this process: database, migrations, services, HTTP server and
 * workers; and stops it gracefully. `main.ts` and the tests both go through here.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { loadConfig, type Config } from './config';
import { createLogger, flushLogs, logSinkOf } from './logger';
import { openDatabase, migrate, type DbHandle } from './db/connect';
import { loadMasterKey } from './security/master-key';
import { createServices, type Services } from './services';
import { createApp } from './app';
import { createHttpServer } from './http/server';
import { PgOrderEventBridge } from './orders/pg-event-bridge';
import { startExpiryWorker } from './workers/expiry';
import { startHousekeeping } from './workers/housekeeping';
import { startSealer } from './chain/sealer';
import type { Loop } from './workers/loop';
import { startJobWorker } from './workers/job-worker';

export interface Runtime {
  config: Config;
  log: Logger;
  db: DbHandle;
  services: Services;
  server: http.Server;
  /** `http://host:port` plus BASE_PATH. */
  url: string;
  /** Where a person finds each part, for the ready line. */
  addresses: ServiceAddresses;
  port: number;
  close(): Promise<void>;
}

/** Opens the database and builds the services without serving HTTP (the `kit` command uses this). */
export async function openServices(config: Config, log: Logger) {
  const masterKey = loadMasterKey({ envKey: config.KIT_MASTER_KEY, dataDir: config.DATA_DIR });
  const db = await openDatabase({ dataDir: config.DATA_DIR, databaseUrl: config.DATABASE_URL, schema: config.DATABASE_SCHEMA });
  await migrate(db);
  return { db, services: createServices(config, db, masterKey, log) };
}

export interface ServiceAddresses {
  service: string;
  pos: string;
  mp: string;
  docs: string;
  openapi: string;
  metrics: string;
  /** The sandbox's payer API (unset when the sandbox is off). */
  sandbox?: string;
}

/** How long stopping waits for the log reader to take the last lines before exiting anyway. */
export const LOG_FLUSH_ON_STOP_MS = 2_000;

export async function startRuntime(env: NodeJS.ProcessEnv = process.env): Promise<Runtime> {
  const config = loadConfig(env);
  const log = createLogger(config.LOG_LEVEL, { bufferBytes: config.LOG_BUFFER_BYTES });
  const { db, services } = await openServices(config, log);
  const { metrics } = services;
  const sink = logSinkOf(log);
  metrics.readHeldCallsFrom(() => services.events.waiting);
  if (sink) metrics.readLogStatsFrom(() => ({ dropped: sink.droppedTotal, bufferedBytes: sink.bufferedBytes }));
  metrics.countChainQueueWith(() => services.chain.stores.ledger.queueDepth());
  metrics.countOutboxWith(() => services.jobs.store.depth('callback'));
  const state = { shuttingDown: false };

  const bridge = db.pool ? new PgOrderEventBridge(db.pool, services.events, db.schema!, log) : undefined;
  await bridge?.start();

  const workers: Loop[] = [
    startExpiryWorker(services.prepay, config.EXPIRY_SWEEP_INTERVAL, log),
    startHousekeeping(services.apps, log),
    ...services.jobHandlers.map((h) => startJobWorker(services.jobs, h, config.CALLBACK_POLL_INTERVAL, log.child({ part: h.queue }))),
    ...(config.CHAIN_SEALER
      ? [startSealer(services.chain.sealer, config.CHAIN_SEAL_INTERVAL, log, (ms, acceptedAt, failed) => metrics.chainSealed(ms, acceptedAt, failed))]
      : []),
  ];

  const self = { url: '' };
  const app = createApp(config, services, log, state, self);
  const server = createHttpServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `http://${host}:${port}${config.BASE_PATH}`;
  self.url = url;
  services.payments.gateways.attach(url);
  // Due work left by a previous run (or another instance) starts now, not at the first poll.
  for (const h of services.jobHandlers) services.jobs.wake(h.queue);
  const addresses: ServiceAddresses = {
    service: url,
    pos: `${url}/pos/`,
    mp: `${url}/mp/`,
    docs: `${url}/docs/`,
    openapi: `${url}/openapi.json`,
    metrics: `${url}/metrics`,
    ...(services.sandbox ? { sandbox: `${url}/sandbox/` } : {}),
  };
  log.info({ url, database: db.dialect, addresses }, 'kit service ready');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      state.shuttingDown = true;
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Held calls answer now with the order's current state instead of being cut off.
      services.events.close();
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_GRACE);
      await serverClosed;
      clearTimeout(grace);
      await Promise.all(workers.map((w) => w.stop()));
      await bridge?.stop();
      await db.close();
      log.info({ logLinesDropped: sink?.droppedTotal ?? 0 }, 'kit service stopped');
      // A reader that stopped reading must not keep the process from ending.
      await flushLogs(log, LOG_FLUSH_ON_STOP_MS);
    })());

  return { config, log, db, services, server, url, addresses, port, close };
}
