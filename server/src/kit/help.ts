/**
 * What `npm run kit -- --help` (or `help`, or nothing) and `--help` on any command print: usage lines
 * in one column and what each does in a second, wrapped so that every line of it starts at the same
 * place; a usage too long for the first column has its text start on the next line.
 */
import type { KitCommand } from './command';

const WIDTH = 100;
/** The first column's widest usage; longer ones go on a line of their own. */
const USAGE_COLUMN = 40;
const INDENT = '  ';

/** `text` in lines of at most `width` characters, broken at spaces. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** The two-column table of `commands`. */
export function commandTable(commands: readonly KitCommand[]): string[] {
  const column = Math.min(USAGE_COLUMN, Math.max(...commands.map((c) => c.usage.length)));
  const pad = ' '.repeat(INDENT.length + column + 2);
  const out: string[] = [];
  for (const c of commands) {
    const text = wrap(c.summary, WIDTH - pad.length);
    if (c.usage.length > column) out.push(`${INDENT}${c.usage}`, ...text.map((t) => `${pad}${t}`));
    else out.push(`${INDENT}${c.usage.padEnd(column)}  ${text[0] ?? ''}`, ...text.slice(1).map((t) => `${pad}${t}`));
  }
  return out;
}

export function generalHelp(commands: readonly KitCommand[]): string {
  return [
    'usage: npm run kit -- <command> [options]',
    '       npm run kit -- <command> --help      (one command)',
    '',
    ...wrap(
      'Every command reads the same settings as the service (the environment over the settings file: .env at the checkout root, or KIT_ENV_FILE) and finds the running service through DATA_DIR/service.json; it refuses to act on another database or port than that service (docs/operations.md).',
      WIDTH,
    ),
    '',
    'commands:',
    ...commandTable(commands),
  ].join('\n');
}

export function commandHelp(command: KitCommand): string {
  return [`usage: npm run kit -- ${command.usage}`, '', ...wrap(command.summary, WIDTH - INDENT.length).map((l) => `${INDENT}${l}`)].join('\n');
}

/** Whether `args` ask for help (`--help` or `-h` before any `--`). */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}
