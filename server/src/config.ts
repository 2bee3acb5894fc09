/**
 * All configuration comes from the environment, parsed once at start-up. Each feature reads its own
 * section; durations accept `500ms`, `15s`, `3m`, `2h` or plain milliseconds.
 *
 * The ground floor: the service's own settings, and the settings sections the composition root
 * hands in (each payment provider's, `configuration.ts` with the providers' registry). This file
 * imports no provider: a section is data it is given (`SettingsSection`), and the sections' part
 * of the `Config` type is an interface the registry fills (`SectionSettings`).
 */
import { z } from 'zod';
import { parse as parsePgUrl } from 'pg-connection-string';
import path from 'node:path';
import { parseDuration } from '@kit/shared/duration';
import { productionRefusals } from './production-refusals';

export { parseDuration };

/**
 * A settings section a part above this floor hands to the root (a payment provider's module,
 * `payments/providers/provider.ts`): its zod shape (each setting with its `.describe()`) and its
 * own refusal of a configuration whose settings do not fit together.
 */
export interface SettingsSection {
  /** The section's settings (`production` drops development defaults). */
  settings(production: boolean): z.ZodRawShape;
  /** Why a configuration is refused at start, or null; given the whole parsed configuration. */
  settingsProblem?(config: never): string | null;
}

/**
 * The sections' settings as `Config` carries them: empty here, filled by the providers' registry
 * (`payments/providers/registry.ts`, TypeScript's declaration merging), so that the type follows
 * the registry while this file imports none of it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the providers' registry (declaration merging)
export interface SectionSettings {}

/** The sections' shapes as one, in the order the root lists them. */
const sectionsShape = (sections: readonly SettingsSection[], production: boolean): z.ZodRawShape =>
  Object.assign({}, ...sections.map((s) => s.settings(production)));

/**
 * A connection string the PostgreSQL driver reads, parsed by the driver's own parser: libpq's forms
 * are not all WHATWG URLs (`postgres://user@/kit?host=/var/run/postgresql`, a Unix socket, has a
 * user and no host), so `new URL` would refuse a valid setting.
 */
function isPostgresUrl(text: string): boolean {
  if (!/^postgres(ql)?:\/\//i.test(text)) return false;
  try {
    return Boolean(parsePgUrl(text).host);
  } catch {
    return false;
  }
}

const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      try {
        return parseDuration(v);
      } catch (e) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: (e as Error).message });
        return z.NEVER;
      }
    });
const durationList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      try {
        return v.split(',').map((s) => parseDuration(s));
      } catch (e) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: (e as Error).message });
        return z.NEVER;
      }
    });
/** Sizes accept `512kb`, `8mb` or plain bytes. */
export function parseBytes(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(text);
  if (!m) throw new Error(`"${text}" is not a size such as 512kb or 8mb`);
  const factor = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  return Math.round(Number(m[1]) * factor);
}
const bytes = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      try {
        return parseBytes(v);
      } catch (e) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: (e as Error).message });
        return z.NEVER;
      }
    });
const flag = (fallback: boolean) =>
  z
    .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'])
    .default(fallback ? 'on' : 'off')
    .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

/** `on`/`off`, or a comma-separated list of trusted proxy addresses or subnets (Express's `trust proxy`). */
const trustProxy = () =>
  z
    .string()
    .default('off')
    .transform((v, ctx): boolean | string[] => {
      const t = v.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(t)) return true;
      if (['', '0', 'false', 'no', 'off'].includes(t)) return false;
      const list = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = list.filter((a) => !/^(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?)$/.test(a));
      if (bad.length) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `must be on, off or a list of addresses or subnets; not ${bad.join(', ')}` });
        return z.NEVER;
      }
      return list;
    });

/**
 * The platform's own waits between repeated notifications; the service retries its callbacks on
 * the same schedule (15 retries, at least the 12 that section 6 asks for).
 */
const PLATFORM_RETRY_SCHEDULE = '15s,15s,30s,3m,10m,20m,30m,30m,30m,60m,3h,3h,3h,6h,6h';

function schemaFor(env: NodeJS.ProcessEnv, sections: readonly SettingsSection[]) {
  const production = env.NODE_ENV === 'production';
  // Each `.describe()` is the setting's documentation: docs/configuration.md is generated from it (`npm run docs`).
  return z.object({
    NODE_ENV: z
      .string()
      .default('development')
      .describe(
        '`production` turns the sandbox off, refuses plain-HTTP logins from loopback and leaves the channel credentials without sandbox defaults; it refuses to start with a `PUBLIC_URL` that is not HTTPS (loopback excepted) and, on PostgreSQL, without `KIT_MASTER_KEY` and `CHAIN_NODE_KEY` (docs/operations.md).',
      ),
    KIT_ENV_FILE: z
      .string()
      .optional()
      .describe(
        'The settings file the service (`npm start`, `npm run server`) and every `npm run kit` command read alike: `NAME=value` lines, under the real environment (a variable set there wins). Unset: `.env` at the checkout root, when it exists; `off`: none. Relative to the working directory (docs/operations.md).',
      ),
    PORT: z.coerce
      .number({ invalid_type_error: 'must be a port number (0–65535)' })
      .int()
      .min(0)
      .max(65535)
      .default(8080)
      .describe('Listening port (`0`: any free port).'),
    HOST: z
      .string()
      .default(production ? '0.0.0.0' : '127.0.0.1')
      .describe(
        'Listening address. Outside production `127.0.0.1`: only this machine reaches the service, and with it the sandbox, which pays any code; `0.0.0.0` (every address) lets a phone on the network open the payer page, and the start banner then warns that anyone on the network can pay through the sandbox. In production every address.',
      ),
    BASE_PATH: z
      .string()
      .regex(/^(\/[^/]+)*$/, 'must be empty or start with / and not end with /')
      .default('')
      .describe(
        'Path prefix when the service sits under a sub-path of its public URL (`/kit`); signed paths are relative to it, and the front ends work under it.',
      ),
    DATA_DIR: z
      .string()
      .default('./data')
      .describe(
        'Folder of the SQLite file (`kit.sqlite` with its `-wal`/`-shm`), the generated master key and the generated chain node key, all mode 0600 (the folder 0700 when created). Relative to the working directory.',
      ),
    DATABASE_URL: z
      .string()
      .refine(isPostgresUrl, 'must be a PostgreSQL URL: postgres://user:pass@host:5432/kit, or postgres://user@/kit?host=/var/run/postgresql for a Unix socket')
      .optional()
      .describe(
        'PostgreSQL instead of SQLite, e.g. `postgres://user@host:5432/kit`, or `postgres://user@/kit?host=/var/run/postgresql` through a Unix socket (docs/operations.md).',
      ),
    DATABASE_SCHEMA: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/)
      .optional()
      .describe('PostgreSQL schema for the tables (created if missing; unset: `public`); lets several kits or test runs share a database.'),
    KIT_MASTER_KEY: z
      .string()
      .optional()
      .describe(
        '32 bytes as 64 hex characters or base64 (`openssl rand -hex 32`): encrypts app secrets at rest and keys deduction codes. Every instance must share it: production on PostgreSQL refuses to start without it. Unset: a key file generated in `DATA_DIR` (SQLite, or outside production).',
      ),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('pino level; `silent` for none (docs/operations.md).'),
    TRUST_PROXY: trustProxy().describe(
      "Trust `X-Forwarded-*` from the proxy in front (TLS terminated by it: logins then need `X-Forwarded-Proto: https`). `on` trusts whoever connects, so the port must be reachable only through the proxy; better, a comma-separated list of the proxies' addresses or subnets (`10.0.0.5`, `10.0.0.0/8`, `loopback`): forwarding headers from anyone else are ignored (docs/operations.md).",
    ),
    ALLOW_INSECURE_LOGIN_ON_LOOPBACK: flag(!production).describe(
      'Accept plain-HTTP logins from a direct loopback caller (development); a forwarding header of any kind means a proxy stands in front and refuses it.',
    ),
    LOGIN_MAX_FAILURES: z.coerce
      .number({ invalid_type_error: 'must be a whole number (1–100)' })
      .int()
      .min(1)
      .max(100)
      .default(5)
      .describe(
        'Failed logins per account and per client address within 15 minutes before further logins are refused with 429 `login_throttled` and `Retry-After` (every login: 4.16, the POS display, the mini-program, the console; counted in the database, so across instances).',
      ),
    LOGIN_LOCKOUT: duration('1m')
      .refine((ms) => ms >= 1_000 && ms <= 900_000, 'must be between 1s and 15m')
      .describe(
        'The first lockout after `LOGIN_MAX_FAILURES` failures; each further failure in the next 15 minutes locks again for twice as long, up to 15 minutes.',
      ),
    CALLBACK_ALLOW_PRIVATE: flag(!production).describe(
      "Allow callback, profit-sharing and other URLs the service calls on a merchant's behalf to point at loopback, private, link-local, unique-local or unspecified addresses. `off` refuses such URLs when set (400 `url_not_public`) and checks the address actually connected to at every call (docs/operations.md).",
    ),
    DATABASE_STATEMENT_TIMEOUT: duration('10s')
      .refine((ms) => ms >= 100, 'must be at least 100ms')
      .describe(
        'Longest time one database statement may take (PostgreSQL `statement_timeout`; on the client one timer for the wait for a pooled connection and the statement run on it, and a connection that does not answer within it is closed; SQLite busy wait). A database that does not answer within it makes requests fail with 503 `unavailable` (docs/operations.md).',
      ),
    DATABASE_POOL_SIZE: z.coerce
      .number()
      .int()
      .min(1)
      .max(200)
      .default(10)
      .describe(
        'PostgreSQL: connections one instance keeps open for requests and jobs at most. Each instance also holds one for order events (LISTEN) and briefly one more while the database is away; plan `max_connections` as instances × (this + 2) (docs/operations.md).',
      ),
    INSTANCE_HELLO_INTERVAL: duration('10s')
      .refine((ms) => ms >= 100, 'must be at least 100ms')
      .describe(
        'PostgreSQL: how often an instance tells the others sharing its database that it is there (a NOTIFY); an instance that has heard no other for three of these sends no order events (docs/operations.md).',
      ),
    SIGNATURE_TOLERANCE: duration('300s').describe('How far `_t` may be from the server clock (docs/signing.md).'),
    WAIT_FOR_FINISH_HOLD: duration('20s')
      .refine((ms) => ms >= 100 && ms <= 55_000, 'must be between 100ms and 55s')
      .describe('How long a 4.2 `waitForFinish=1` call is held at most (100 ms to 55 s).'),
    ORDER_TTL: duration('2h')
      .refine((ms) => ms >= 1_000, 'must be at least 1s')
      .describe('How long a prepay order stays `active` before it expires (`cancel`).'),
    EXPIRY_SWEEP_INTERVAL: duration('1s').describe('How often expired orders are moved to `cancel` (reading an expired order cancels it at once anyway).'),
    SHUTDOWN_DRAIN: duration(production ? '5s' : '0s').describe(
      'On SIGTERM or SIGINT, how long the service keeps accepting connections while `/health` answers 503 `shutting_down`, so that a load balancer stops routing to it before it stops listening; `0s` stops listening at once (docs/operations.md).',
    ),
    SHUTDOWN_GRACE: duration('5s').describe(
      'On SIGTERM or SIGINT, how long open requests get, once the service stopped listening, before they are closed (docs/operations.md).',
    ),
    // Payments
    SANDBOX_ENABLED: flag(!production).describe(
      'Serve the payment sandbox under `/sandbox` and use it as the gateway when no gateway URL is set (docs/sandbox.md).',
    ),
    // The sections the root hands in, each payment provider's (`payments/providers/<provider>/`, listed in
    // its registry), in their place in docs/configuration.md; typed by `SectionSettings`, not here.
    ...(sectionsShape(sections, production) as Record<never, never>),
    CALLBACK_RETRY_SCHEDULE: durationList(PLATFORM_RETRY_SCHEDULE).describe(
      'Waits between attempts of a merchant callback (15 retries by default; each attempt re-signed); after the last one the callback is marked `failed` (docs/payments.md).',
    ),
    CALLBACK_TIMEOUT: duration('10s').describe('Time limit of one callback attempt.'),
    CALLBACK_POLL_INTERVAL: duration('250ms').describe(
      "How often the callback worker looks for due callbacks when idle (a retry's time comes, another instance's callback); new callbacks start at once.",
    ),
    JOB_POLL_INTERVAL: duration('250ms').describe(
      'How often each other job worker (payment and refund follow-up, profit-sharing follow-up, daily reconciliation, sandbox notifications) looks for due work when idle; new work starts at once.',
    ),
    JOB_RETENTION: duration('7d').describe(
      'How long a finished follow-up job (payment and refund queries, profit-sharing follow-up, sandbox notifications) is kept before housekeeping deletes it; callbacks and daily reconciliations are kept, they are the history the console and the API show.',
    ),
    PAYMENT_QUERY_SCHEDULE: durationList('10s,30s,1m,2m,5m,10m,30m,60m').describe(
      'Waits between order queries of a placed channel order until it is paid or closed, so that a lost payment notification still finishes the order; refund queries follow it too, then repeat its last wait until the refund ends.',
    ),
    CODE_PAY_WAIT: duration('30s')
      .refine((ms) => ms >= 1_000 && ms <= 600_000, 'must be between 1s and 10m')
      .describe(
        "How long a payment code scanned at the counter (7.4) may wait for the payer's confirmation on the phone; after it, or when the outcome cannot be known, the kit cancels the trade at the platform (money taken meanwhile is returned) and the order stays payable.",
      ),
    RECONCILE_AT: z
      .string()
      .regex(/^(off|([01][0-9]|2[0-3]):[0-5][0-9])$/, 'must be a China time of day written HH:MM, or off')
      .default('10:30')
      .describe(
        "China time of day (HH:MM, UTC+8) at which the previous day is reconciled with the channel's trade bill, once across instances (docs/reconciliation.md); the platform publishes bills after 10:00. `off`: no daily run (`npm run kit -- reconcile` still works).",
      ),
    RECONCILE_RETRY_SCHEDULE: durationList('5m,10m,30m,1h').describe(
      'Waits between attempts of the daily reconciliation while the bill is not ready or cannot be had; then its last wait repeats.',
    ),
    PUBLIC_URL: z
      .string()
      .url()
      .optional()
      .describe(
        "This service's base URL as the payment platform reaches it, including `BASE_PATH`; notification URLs are `PUBLIC_URL/pay-notify/…`. Unset: the listening URL. In production it must be `https://` (the platforms notify only HTTPS, and the POS display and the console take logins only over it), or the start is refused; a loopback `http://` address (`localhost`, `127.0.0.1`, `[::1]`) is taken, for a trial on one machine.",
      ),
    MP_APPID: (production ? z.string().min(1).optional() : z.string().min(1).default('wx5andb0xmp000001')).describe(
      "The payers' mini-program app id: login-code exchange (`jscode2session`) and mini-program payment (4.4).",
    ),
    MP_SECRET: (production ? z.string().min(1).optional() : z.string().min(1).default('sandbox-mini-program-secret')).describe(
      "The payers' mini-program secret, for the login-code exchange; server side only.",
    ),
    PAY_GATEWAY_TIMEOUT: duration('10s').describe(
      'Time limit of one call to a payment gateway, its backup domain included (v3 with PAY_GATEWAY_BACKUP_URL: the main domain gets half); a refund left requested is resumed after it.',
    ),
    SANDBOX_NOTIFY_SCHEDULE: durationList(PLATFORM_RETRY_SCHEDULE).describe(
      "Sandbox: waits between repeated notifications while the service does not acknowledge (the platform's own).",
    ),
    SANDBOX_DUPLICATE_NOTIFY: z.coerce
      .number({ invalid_type_error: 'must be a whole number (0–5)' })
      .int()
      .min(0)
      .max(5)
      .default(1)
      .describe('Sandbox: extra copies of each acknowledged notification (0–5), as the real platform sometimes sends.'),
    SANDBOX_REFUND_DELAY: duration('1s').describe(
      'Sandbox: time from accepting a refund to its completion and notification (the refund query says `PROCESSING` until then).',
    ),
    SANDBOX_PROFIT_SHARING_DELAY: duration('1s').describe("Sandbox: time after a split before its receivers' results are decided."),
    SANDBOX_MP_TOKEN_TTL: duration('2h')
      .refine((ms) => ms >= 1_000, 'must be at least 1s')
      .describe(
        "Sandbox: lifetime of the mini-program access tokens its `stable_token` hands out (the platform's 2 hours); in the last 5 minutes of a token's life a call gets the next one (docs/sandbox.md).",
      ),
    PROFIT_SHARING_QUERY_SCHEDULE: durationList('1s,2s,5s,10s,30s,1m,5m,10m,30m,60m').describe(
      "Waits between queries of a split's results until every receiver's result is final (then the last wait repeats).",
    ),
    // Chain
    CHAIN_SEAL_INTERVAL: duration('1s').describe('Time between chain blocks.'),
    CHAIN_SEALER: flag(true).describe('Whether this instance seals blocks; `off` leaves sealing to other instances or `npm run kit -- chain seal`.'),
    CHAIN_NODE_KEY: z
      .string()
      .optional()
      .describe(
        'ed25519 node key that signs blocks: 64 hex characters of seed (`openssl rand -hex 32`), or a PKCS#8 PEM. Every instance must share it: production on PostgreSQL refuses to start without it. Unset: generated into `DATA_DIR/chain-node.key` (mode 0600) on first start (SQLite, or outside production).',
      ),
    CHAIN_ANCHOR_RPC_URL: z
      .string()
      .url()
      .optional()
      .describe(
        'Ethereum JSON-RPC endpoint of the EVM chain the ledger is anchored on (docs/chain.md, "Anchors"). Anchoring runs only with this, `CHAIN_ANCHOR_KEY` and `CHAIN_ANCHOR_CONTRACT` set.',
      ),
    CHAIN_ANCHOR_KEY: z
      .string()
      .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'must be a secp256k1 private key: 64 hex characters, optionally 0x-prefixed')
      .optional()
      .describe(
        'Private key (64 hex characters) of the account that deploys the anchor contract and pays for the anchors; the only account the contract accepts.',
      ),
    CHAIN_ANCHOR_CONTRACT: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed contract address')
      .optional()
      .describe('Address of the anchor contract (`npm run kit -- chain anchor deploy` prints it).'),
    CHAIN_ANCHOR_INTERVAL: duration('1m').describe('How often new blocks are anchored (one transaction per interval when blocks were sealed).'),
    CHAIN_ANCHOR_CONFIRMATIONS: z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(1)
      .describe('EVM blocks (counting the one holding it) an anchor transaction must have before it is recorded and shown in proofs.'),
    // POS display
    POS_MP_LINK_PREFIX: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe(
        'Prefix of the payer link: the plain code of the mini-program tab with `POS_MP_CODE=link`, and the link shown as text under the code outside production. Unset: `<scheme>://<host the display used><BASE_PATH>/mp/#/pages/pay/index?scene=`.',
      ),
    POS_MP_CODE: z
      .enum(['platform', 'link'])
      .default('platform')
      .describe(
        "What the display's mini-program tab shows: `platform`, the mini-program code the platform makes for the order's scene (`getwxacodeunlimit`, through `MP_API_URL`); `link`, a plain QR code of the payer link (`POS_MP_LINK_PREFIX`), for merchants who registered the link's prefix for plain codes instead (docs/screens.md).",
      ),
    POS_DIST_DIR: z.string().optional().describe('The built POS display served at `/pos/`. Unset: `pos-display/dist` of this checkout.'),
    POS_SESSION_MAX_AGE: duration('12h').describe("Lifetime of the cashier's login cookie on the POS display."),
    POS_POINTS_SESSION_TTL: duration('10m').describe('How long one points session (one uuid) on the POS display can keep getting fresh deduction codes.'),
    // Payer mini-program (MP_APPID / MP_SECRET are with the payment settings above)
    MP_LOGIN_URL: z
      .string()
      .url()
      .optional()
      .describe(
        "The platform's `jscode2session` endpoint for the login-code exchange. Unset: the sandbox's (`<service URL>/sandbox/sns/jscode2session`) when SANDBOX_ENABLED, else `https://api.weixin.qq.com/sns/jscode2session`.",
      ),
    MP_API_URL: (production ? z.string().url().default('https://api.weixin.qq.com') : z.string().url().optional()).describe(
      "Base URL of the platform's server API for the mini-program: `/cgi-bin/stable_token` (the access token, one per deployment, kept in the database) and `/wxa/getwxacodeunlimit` (the POS display's mini-program code) (docs/operations.md). Unset outside production: the sandbox (`<service URL>/sandbox`) when SANDBOX_ENABLED, else `https://api.weixin.qq.com`.",
    ),
    MP_CODE_PAGE: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, 'must be a page path of the mini-program without a leading /, such as pages/pay/index')
      .default('pages/pay/index')
      .describe("The mini-program page the POS display's code opens (`page` of `getwxacodeunlimit`); it reads the order from `scene`."),
    MP_CODE_ENV_VERSION: z
      .enum(['release', 'trial', 'develop'])
      .default('release')
      .describe(
        'Which version of the mini-program the code opens (`env_version`): `release`, or `trial` / `develop` while testing; only `release` asks the platform to check that `MP_CODE_PAGE` exists (`check_path`).',
      ),
    MP_H5_DIR: z.string().optional().describe("The mini-program's H5 build served at `/mp/`. Unset: `miniprogram/dist/h5` of this checkout."),
    // Merchant console
    CONSOLE_DIST_DIR: z.string().optional().describe('The built merchant console served at `/console/`. Unset: `console/dist` of this checkout.'),
    CONSOLE_SESSION_MAX_AGE: duration('12h').describe("Lifetime of the merchant's login cookie on the console."),
    // Operations
    METRICS_TOKEN: z
      .string()
      .min(16, 'must be at least 16 characters')
      .optional()
      .describe(
        'Bearer token `GET /metrics` requires (`Authorization: Bearer <token>`, at least 16 characters). Unset: the endpoint is open, so keep it off the public network (docs/operations.md).',
      ),
    LOG_BUFFER_BYTES: bytes('8mb')
      .refine((n) => n >= 4096, 'must be at least 4kb')
      .describe('Most bytes of log lines held while stdout is not being read (at least `4kb`); lines beyond are dropped and counted (docs/operations.md).'),
  });
}

/** The service's own settings, parsed. */
type ServiceConfig = z.output<ReturnType<typeof schemaFor>> & { production: boolean };

/** The configuration: the service's own settings and the sections' (`SectionSettings`). */
export type Config = ServiceConfig & SectionSettings;

/** Every environment variable the service reads with these sections (docs/configuration.md documents each; a test checks it). */
export const configKeysOf = (sections: readonly SettingsSection[]): string[] => Object.keys(schemaFor({}, sections).shape);

export interface SettingDoc {
  key: string;
  description: string;
  /** The default as it would be written in the environment; undefined: unset. */
  development: string | undefined;
  production: string | undefined;
}

/** What `unwrap`s down to a `.default()`: the default as written, or undefined. */
function defaultOf(schema: z.ZodTypeAny): string | undefined {
  if (schema instanceof z.ZodDefault) return String(schema._def.defaultValue());
  if (schema instanceof z.ZodEffects) return defaultOf(schema._def.schema);
  if (schema instanceof z.ZodOptional) return defaultOf(schema._def.innerType);
  return undefined;
}

/** Every setting with its description and its defaults outside and in production (docs/configuration.md is written from this). */
export function settingDocsOf(sections: readonly SettingsSection[]): SettingDoc[] {
  const dev = schemaFor({}, sections).shape;
  const prod = schemaFor({ NODE_ENV: 'production' }, sections).shape;
  return Object.entries(dev).map(([key, schema]: [string, z.ZodTypeAny]) => ({
    key,
    description: schema.description ?? '',
    development: defaultOf(schema),
    production: defaultOf((prod as Record<string, z.ZodTypeAny>)[key]),
  }));
}

/**
 * The configuration of `env` with the sections the root hands in; refused (one error listing every
 * setting that does not parse, then the sections' and production's refusals) as the start reports it.
 */
export function parseConfig(env: NodeJS.ProcessEnv, sections: readonly SettingsSection[]): Config {
  const parsed = schemaFor(env, sections).safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  const c = parsed.data;
  const production = c.NODE_ENV === 'production';
  const problems = [sectionsProblem(sections, c), ...productionRefusals({ ...c, production })].filter(Boolean);
  if (problems.length) throw new Error(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return { ...c, DATA_DIR: path.resolve(c.DATA_DIR), production } as Config;
}

/** The first section's refusal of the parsed configuration, or null. */
function sectionsProblem(sections: readonly SettingsSection[], config: Record<string, unknown>): string | null {
  for (const s of sections) {
    const problem = s.settingsProblem ? s.settingsProblem(config as never) : null;
    if (problem) return problem;
  }
  return null;
}
