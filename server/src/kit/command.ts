import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Config } from '../config';
import type { openServices } from '../runtime';
import type { RunningService } from '../service-file';

export type KitContext = Awaited<ReturnType<typeof openServices>> & {
  config: Config;
  /** The service running on this DATA_DIR (`DATA_DIR/service.json`), whose settings agree with this command's; null when none runs. */
  service: RunningService | null;
};

/** Where a person on this machine, and the service itself, reach the service the command works with. */
export function serviceUrl(ctx: Pick<KitContext, 'config' | 'service'>): string {
  const { PUBLIC_URL, PORT, BASE_PATH } = ctx.config;
  return (ctx.service ? (ctx.service.publicUrl ?? ctx.service.url) : (PUBLIC_URL ?? `http://127.0.0.1:${PORT}${BASE_PATH}`)).replace(/\/+$/, '');
}

/** One `kit` sub-command: `npm run kit -- <group> <name> [args…]`. */
export interface KitCommand {
  group: string;
  name: string;
  usage: string;
  summary: string;
  /**
   * Prints its result with `out` on stdout (JSON lines for machine use) and returns the exit code;
   * text meant for a person (what to do next) goes to `say`, on stderr, so scripts can parse stdout.
   */
  run(ctx: KitContext, args: string[], out: (line: string) => void, say: (line: string) => void): Promise<number>;
}

export class UsageError extends Error {}

/**
 * Parses a sub-command's arguments with Node's own parser: `options` names each flag and its type;
 * an unknown flag or a missing value is a usage error (exit 2, with the command's usage line).
 */
export function parseCommandArgs<const O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args: attachValues(args, options), options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * `--secret <value>` → `--secret=<value>` for options that take a value: Node's parser refuses a
 * value that starts with `-` as ambiguous, and app secrets (base64url) sometimes do.
 */
function attachValues(args: string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return [...out, ...args.slice(i)];
    const name = a.startsWith('--') ? a.slice(2) : undefined;
    const short = !name && /^-[A-Za-z]$/.test(a) ? Object.keys(options).find((k) => options[k].short === a[1]) : undefined;
    const key = name ?? short;
    if (key !== undefined && options[key]?.type === 'string' && i + 1 < args.length) {
      out.push(`--${key}=${args[++i]}`);
    } else {
      out.push(a);
    }
  }
  return out;
}
