import type { Config } from '../config';
import type { openServices } from '../runtime';

export type KitContext = Awaited<ReturnType<typeof openServices>> & { config: Config };

/** One `kit` sub-command: `npm run kit -- <group> <name> [args…]`. */
export interface KitCommand {
  group: string;
  name: string;
  usage: string;
  summary: string;
  /** Prints its result on stdout (JSON lines for machine use) and returns the exit code. */
  run(ctx: KitContext, args: string[], out: (line: string) => void): Promise<number>;
}

export class UsageError extends Error {}

/** Minimal `--flag value` / `--flag` parser for sub-commands. */
export function parseFlags(args: string[]): { positional: string[]; flags: Record<string, string | true> } {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith('--')) {
      const [k, inline] = a.slice(2).split('=', 2);
      if (inline !== undefined) flags[k] = inline;
      else if (args[i + 1] !== undefined && !args[i + 1].startsWith('--')) flags[k] = args[++i];
      else flags[k] = true;
    } else positional.push(a);
  }
  return { positional, flags };
}
