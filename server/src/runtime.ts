/**
 * Starts the whole service in this process: database, migrations, services, HTTP server and
 * workers; and stops it gracefully. `main.ts` and the tests both go through here.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '@kit/shared/clock';
import type { Config } from './config';
import { loadConfig } from './configuration';
import { createLogger, flushLogs, logSinkOf } from './logger';
import { ListeningUrl, type SelfUrl } from './self-url';
import { writeServiceFile } from './service-file';
import { listeningUrls, listensOnAllAddresses } from './listen-addresses';
import { channelSetup, noChannelWarning } from './payments/providers/setup';
import type { ProviderModule } from './payments/providers/provider';
import { openDatabase, migrate, type DbHandle } from './db/connect';
import { loadMasterKey } from './security/master-key';
import { loadDevPlugin } from './plugins/load';
import { backgroundWork, createServices, type Services } from './services';
import { createApp } from './app';
import { createHttpServer } from './http/server';
import { PgOrderEventBridge } from './orders/pg-event-bridge';
import type { Loop } from './jobs/loop';

/**
 * Connections waiting to be accepted. Node's default (511) overflows when thousands of terminals
 * and payers open held calls at once (a lunch-time queue, or every client reconnecting after a
 * restart): the kernel then drops their SYNs and they retry after 1, 3, 7 … 63 s. The kernel caps
 * it at `net.core.somaxconn` (4096 on current Linux).
 */
const LISTEN_BACKLOG = 4096;

export interface Runtime {
  config: Config;
  log: Logger;
  db: DbHandle;
  services: Services;
  /** On PostgreSQL: carries order events to the other instances (none heard: none sent). */
  bridge?: PgOrderEventBridge;
  server: http.Server;
  /** `http://host:port` plus BASE_PATH. */
  url: string;
  /** Where a person finds each part, for the ready line. */
  addresses: ServiceAddresses;
  port: number;
  /** The clock every part reads (design 7.1). */
  clock: Clock;
  /**
   * Runs the background work due now to its end: every worker claims what is due on the clock and
   * waits for the runs it started, again until none finds anything (a run may make more work due:
   * a payment's callback). What a test calls after moving its clock.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** Rounds of `settle` after which work that keeps making more work is a fault, not a backlog. */
const SETTLE_ROUNDS = 100;

/**
 * Opens the database and builds the services without serving HTTP (the `kit` command uses this).
 * `selfUrl` is where this service is reached: by default `PUBLIC_URL` (a `kit` command run next
 * to the service reaches the sandbox's channels through it). The development plug-in, when
 * SANDBOX_ENABLED, is loaded here (`plugins/load.ts`): its migrations run with the service's.
 */
export async function openServices(config: Config, log: Logger, opts: { selfUrl?: SelfUrl; clock?: Clock; providers?: readonly ProviderModule[] } = {}) {
  const { selfUrl = new ListeningUrl(config.PUBLIC_URL).read, clock = systemClock, providers } = opts;
  const masterKey = loadMasterKey({ envKey: config.KIT_MASTER_KEY, dataDir: config.DATA_DIR });
  const where = { dataDir: config.DATA_DIR, databaseUrl: config.DATABASE_URL, schema: config.DATABASE_SCHEMA };
  const plugin = await loadDevPlugin(config);
  // Migrations run on a connection of their own without the statement timeout: a schema change
  // on a big table, or the wait for another instance's migration, may take longer than a request may.
  const migrating = await openDatabase(where);
  try {
    await migrate(migrating, plugin?.migrations ?? []);
  } finally {
    await migrating.close();
  }
  const db = await openDatabase({ ...where, statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT, poolSize: config.DATABASE_POOL_SIZE });
  return { db, services: createServices({ config, handle: db, masterKey, log, selfUrl, clock, plugin, providers }) };
}

export interface ServiceAddresses {
  service: string;
  pos: string;
  mp: string;
  console: string;
  docs: string;
  openapi: string;
  metrics: string;
  /** The sandbox's page and payer API (a development plug-in's; unset without one). */
  sandbox?: string;
}

/**
 * The answers being written right now. Once the service is stopping every answer says
 * `Connection: close`: a keep-alive client then opens its next connection to another instance
 * instead of sending more calls to this one until the grace ends.
 */
function trackInFlight(
  server: http.Server,
  state: { shuttingDown: boolean },
): Set<http.ServerResponse & { req: http.IncomingMessage & { originalUrl?: string } }> {
  const open = new Set<http.ServerResponse & { req: http.IncomingMessage & { originalUrl?: string } }>();
  // Before the application's own listener: it may answer synchronously.
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse & { req: http.IncomingMessage }) => {
    if (state.shuttingDown) res.setHeader('connection', 'close');
    open.add(res);
    res.once('close', () => open.delete(res));
  });
  return open;
}

/** How long stopping waits for the log reader to take the last lines before exiting anyway. */
export const LOG_FLUSH_ON_STOP_MS = 2_000;

export interface RuntimeOptions {
  /** The clock every part reads (design 7.1): the system clock unless a test gives its own. */
  clock?: Clock;
  /**
   * The providers the service speaks through, each with its wallet and settings section: the
   * registry's list (`payments/providers/registry.ts`) unless given another, as a test registers a
   * wallet of its own (docs/architecture.md, "Adding a wallet").
   */
  providers?: readonly ProviderModule[];
}

export async function startRuntime(env: NodeJS.ProcessEnv = process.env, opts: RuntimeOptions = {}): Promise<Runtime> {
  const config = loadConfig(env, opts.providers);
  const log = createLogger(config.LOG_LEVEL, { bufferBytes: config.LOG_BUFFER_BYTES });
  // Known once the server listens (see self-url.ts); nothing reads it before.
  const listening = new ListeningUrl();
  const { db, services } = await openServices(config, log, { selfUrl: listening.read, clock: opts.clock, providers: opts.providers });
  const { metrics } = services;
  const sink = logSinkOf(log);
  const state = { shuttingDown: false };
  metrics.readDrainingFrom(() => state.shuttingDown);

  const bridge = db.pool ? new PgOrderEventBridge(db.pool, services.events, db.schema!, log, config.INSTANCE_HELLO_INTERVAL) : undefined;
  await bridge?.start();
  if (bridge) metrics.readOtherInstancesFrom(() => bridge.othersHeard);

  const app = createApp(config, services, log, state);
  const server = createHttpServer(app);
  const inFlight = trackInFlight(server, state);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: config.PORT, host: config.HOST, backlog: LISTEN_BACKLOG }, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `http://${host}:${port}${config.BASE_PATH}`;
  listening.listening(url);
  // Where the `kit` command finds this service, and which database it must then act on (service-file.ts).
  const removeServiceFile = writeServiceFile(config, { url, port });

  // Workers start once the URL is known: a job calling a channel the sandbox plays, or giving a
  // channel its notify URL without PUBLIC_URL, needs it.
  const workers: Loop[] = backgroundWork(config, db, services, log).flatMap((w) => w.start() ?? []);

  // Due work left by a previous run (or another instance) starts now, not at the first poll.
  for (const k of services.jobKinds) services.jobs.wake(k.handler.queue);
  const addresses: ServiceAddresses = {
    service: url,
    pos: `${url}/pos/`,
    mp: `${url}/mp/`,
    console: `${url}/console/`,
    docs: `${url}/docs/`,
    openapi: `${url}/openapi.json`,
    metrics: `${url}/metrics`,
    ...(services.dev ? { sandbox: `${url}${services.dev.parts.mountPath}/` } : {}),
  };
  log.info({ url, database: db.dialect, addresses, listening: listeningUrls(config.HOST, port, config.BASE_PATH) }, 'kit service ready');
  const noChannel = noChannelWarning(services.played.config, services.played.ids, services.registered);
  if (noChannel)
    log.warn({ missing: channelSetup(services.played.config, services.played.ids, services.registered).filter((c) => c.missing.length) }, noChannel);
  if (services.dev && listensOnAllAddresses(config.HOST)) {
    log.warn(
      { host: config.HOST, plugin: services.dev.plugin.name },
      'the sandbox is on and pays any code, and the service listens on every address of this machine',
    );
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // From here `/health` answers 503 `shutting_down` and every answer says `Connection: close`.
      state.shuttingDown = true;
      // Held calls answer now with the order's current state instead of being cut off (and new ones at once).
      services.events.close();
      server.closeIdleConnections();
      // Calls already running answer with `Connection: close`, so their connections end with them.
      for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      // The drain: still listening and serving, so the load balancer's next checks see the 503 and it
      // stops routing here. Closing the listener at once would refuse the connections it still sends
      // meanwhile (and its checks would never see the 503 that says why).
      if (config.SHUTDOWN_DRAIN > 0) {
        log.info({ drainMs: config.SHUTDOWN_DRAIN }, 'draining: /health answers 503 until the service stops listening');
        await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DRAIN));
        // Connections opened during the drain that never sent a request.
        server.closeIdleConnections();
      }
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      const grace = setTimeout(() => {
        const cut = [...inFlight].filter((res) => !res.writableEnded);
        if (cut.length) {
          metrics.requestsCut(cut.length);
          const calls = cut.slice(0, 20).map((res) => `${res.req.method} ${res.req.originalUrl?.split('?', 1)[0] ?? res.req.url?.split('?', 1)[0]}`);
          log.warn({ cut: cut.length, calls, graceMs: config.SHUTDOWN_GRACE }, 'requests still running at the end of SHUTDOWN_GRACE were cut');
        }
        server.closeAllConnections();
      }, config.SHUTDOWN_GRACE);
      await serverClosed;
      clearTimeout(grace);
      await Promise.all(workers.map((w) => w.stop()));
      await bridge?.stop();
      await db.close();
      removeServiceFile();
      log.info({ logLinesDropped: sink?.droppedTotal ?? 0 }, 'kit service stopped');
      // A reader that stopped reading must not keep the process from ending.
      await flushLogs(log, LOG_FLUSH_ON_STOP_MS);
    })());

  const settle = async () => {
    for (let round = 0; round < SETTLE_ROUNDS; round++) {
      const worked = await Promise.all(workers.map((w) => w.settle()));
      if (!worked.some(Boolean)) return;
    }
    throw new Error(`background work still found work to do after ${SETTLE_ROUNDS} rounds of settle()`);
  };

  return { config, log, db, services, bridge, server, url, addresses, port, clock: services.clock, settle, close };
}
