/**
 * All configuration comes from the environment, parsed once at start-up. Each feature reads its own
 * section; durations accept `500ms`, `15s`, `3m`, `2h` or plain milliseconds.
 */
import { z } from 'zod';
import path from 'node:path';

export function parseDuration(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m) throw new Error(`"${text}" is not a duration such as 500ms, 15s, 3m or 2h`);
  const factor = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 'ms') as 'ms'];
  return Math.round(Number(m[1]) * factor);
}

const duration = (fallback: string) => z.string().default(fallback).transform((v, ctx) => {
  try {
    return parseDuration(v);
  } catch (e) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: (e as Error).message });
    return z.NEVER;
  }
});
const durationList = (fallback: string) => z.string().default(fallback).transform((v, ctx) => {
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
const bytes = (fallback: string) => z.string().default(fallback).transform((v, ctx) => {
  try {
    return parseBytes(v);
  } catch (e) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: (e as Error).message });
    return z.NEVER;
  }
});
const flag = (fallback: boolean) =>
  z.enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off']).optional().transform((v) => (v === undefined ? fallback : ['1', 'true', 'yes', 'on'].includes(v)));

/**
 * The platform's own waits between repeated notifications; the service retries its callbacks on
 * the same schedule (15 retries, at least the 12 that section 6 asks for).
 */
const PLATFORM_RETRY_SCHEDULE = '15s,15s,30s,3m,10m,20m,30m,30m,30m,60m,3h,3h,3h,6h,6h';

function schemaFor(env: NodeJS.ProcessEnv) {
  const production = env.NODE_ENV === 'production';
  return z.object({
    NODE_ENV: z.string().default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().default('0.0.0.0'),
    /** Path prefix when the service sits under a sub-path of its public URL (signatures use paths relative to it). */
    BASE_PATH: z.string().regex(/^(\/[^/]+)*$/, 'must be empty or start with / and not end with /').default(''),
    DATA_DIR: z.string().default('./data'),
    DATABASE_URL: z.string().url().optional(),
    /** PostgreSQL schema to use (created if missing); lets several kits or test runs share a database. */
    DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/).optional(),
    KIT_MASTER_KEY: z.string().optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    TRUST_PROXY: flag(false),
    /** Plain-HTTP login from loopback, for development. */
    ALLOW_INSECURE_LOGIN_ON_LOOPBACK: flag(!production),
    SIGNATURE_TOLERANCE: duration('300s'),
    WAIT_FOR_FINISH_HOLD: duration('20s').refine((ms) => ms >= 100 && ms <= 55_000, 'must be between 100ms and 55s'),
    ORDER_TTL: duration('2h').refine((ms) => ms >= 1_000, 'must be at least 1s'),
    EXPIRY_SWEEP_INTERVAL: duration('1s'),
    SHUTDOWN_GRACE: duration('5s'),
    // Payments (issue 3)
    SANDBOX_ENABLED: flag(!production),
    PAY_GATEWAY_URL: z.string().url().optional(),
    CARD_GATEWAY_URL: z.string().url().optional(),
    CALLBACK_RETRY_SCHEDULE: durationList(PLATFORM_RETRY_SCHEDULE),
    CALLBACK_TIMEOUT: duration('10s'),
    /** How often each job worker (callbacks, notifications, reconciliation) looks for due work when idle. */
    CALLBACK_POLL_INTERVAL: duration('250ms'),
    /** Waits between order queries of a placed channel order; refund queries follow it too. */
    PAYMENT_QUERY_SCHEDULE: durationList('10s,30s,1m,2m,5m,10m,30m,60m'),
    /** Public base URL of this service as the payment channel reaches it (notify URLs); default: the listening URL. */
    PUBLIC_URL: z.string().url().optional(),
    /** Service-provider credentials at the social payment platform (sandbox values outside production). */
    PAY_SP_APPID: production ? z.string().min(1).optional() : z.string().min(1).default('wx5andb0xsp000001'),
    PAY_SP_MCH_ID: production ? z.string().min(1).optional() : z.string().min(1).default('1900000109'),
    PAY_SP_KEY: production ? z.string().min(1).optional() : z.string().min(1).default('sandboxSandboxSandboxSandbox0001'),
    PAY_SIGN_TYPE: z.enum(['MD5', 'HMAC-SHA256']).default('HMAC-SHA256'),
    /** API key at the card-network acquirer (channel SocialCardNetworkBizSmall). */
    CARD_KEY: production ? z.string().min(1).optional() : z.string().min(1).default('sandboxCardAcquirerKey0000000001'),
    /** The payers' mini-program (open ids, mini-program payment). */
    MP_APPID: production ? z.string().min(1).optional() : z.string().min(1).default('wx5andb0xmp000001'),
    MP_SECRET: production ? z.string().min(1).optional() : z.string().min(1).default('sandbox-mini-program-secret'),
    PAY_GATEWAY_TIMEOUT: duration('10s'),
    /** Sandbox: intervals between repeated notifications while the service does not acknowledge (the platform's own). */
    SANDBOX_NOTIFY_SCHEDULE: durationList(PLATFORM_RETRY_SCHEDULE),
    /** Sandbox: extra copies of each acknowledged notification, as the real platform sometimes sends. */
    SANDBOX_DUPLICATE_NOTIFY: z.coerce.number().int().min(0).max(5).default(1),
    /** Sandbox: how long a refund takes before its completion notification. */
    SANDBOX_REFUND_DELAY: duration('1s'),
    /** Sandbox: how long after a split its receivers' results are decided. */
    SANDBOX_PROFIT_SHARING_DELAY: duration('1s'),
    /** Waits between queries of a split's results until every receiver's is final (then its last wait repeats). */
    PROFIT_SHARING_QUERY_SCHEDULE: durationList('1s,2s,5s,10s,30s,1m,5m,10m,30m,60m'),
    // Chain (issue 4)
    CHAIN_SEAL_INTERVAL: duration('1s'),
    /** Whether this instance seals blocks; off leaves sealing to other instances or `kit chain seal`. */
    CHAIN_SEALER: flag(true),
    /** ed25519 node key (64 hex characters of seed, or PKCS#8 PEM); default: generated into DATA_DIR/chain-node.key. */
    CHAIN_NODE_KEY: z.string().optional(),
    // POS display (issue 5)
    /** Prefix of the mini-program link in the POS payment code; default `<service URL as the display reached it>/mp/#/pages/pay/index?scene=`. */
    POS_MP_LINK_PREFIX: z.string().min(1).max(512).optional(),
    /** Built display served at /pos/ (default: pos-display/dist of this checkout). */
    POS_DIST_DIR: z.string().optional(),
    POS_SESSION_MAX_AGE: duration('12h'),
    POS_POINTS_SESSION_TTL: duration('10m'),
    // Payer mini-program (issue 6)
    // (MP_APPID / MP_SECRET are declared with the payments settings above.)
    /** jscode2session endpoint; default `<service URL>/sandbox/sns/jscode2session`. */
    MP_LOGIN_URL: z.string().url().optional(),
    /** H5 build served at /mp/ (default: miniprogram/dist/h5 of this checkout). */
    MP_H5_DIR: z.string().optional(),
    // Operations (issue 13)
    /** Bearer token `GET /metrics` requires; unset: the endpoint is open (keep it off the public network). */
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Most bytes of log lines held while stdout is not being read; lines beyond are dropped and counted. */
    LOG_BUFFER_BYTES: bytes('8mb').refine((n) => n >= 4096, 'must be at least 4kb'),
  });
}

export type Config = ReturnType<typeof loadConfig>;

/** Every environment variable the service reads (the README documents each; a test checks it). */
export const CONFIG_KEYS: readonly string[] = Object.keys(schemaFor({}).shape);

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = schemaFor(env).safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  const c = parsed.data;
  return { ...c, DATA_DIR: path.resolve(c.DATA_DIR), production: c.NODE_ENV === 'production' };
}
