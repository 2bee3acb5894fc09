import { commands } from './commands';
import { runKit } from './main';

/** Runs the command in this process, collecting what it prints; help opens no database. */
async function kit(...argv: string[]) {
  const out: string[] = [];
  const said: string[] = [];
  const code = await runKit(
    argv,
    { KIT_ENV_FILE: 'off' },
    (l) => out.push(l),
    (l) => said.push(l),
  );
  return { code, out: out.join('\n'), said: said.join('\n') };
}

describe('kit --help', () => {
  it.each([['--help'], ['-h'], ['help'], []])('prints the usage of every command for %p (exit 0)', async (...argv) => {
    const r = await kit(...argv.filter(Boolean));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^usage: npm run kit -- <command>/);
    for (const c of commands) expect(r.out).toContain(`  ${c.usage}`);
  });

  it('lines up every description in one column, wrapped to 100 characters', async () => {
    const { out } = await kit('--help');
    const table = out.split('commands:\n')[1].split('\n');
    const column = table[0].indexOf(commands[0].summary.split(' ')[0]);
    expect(column).toBeGreaterThan(10);
    for (const line of table) {
      expect(line.length).toBeLessThanOrEqual(100);
      // A usage line starts at 2 and its description at the column (a usage too long for it has a line
      // of its own); every continuation starts at the column too.
      const usage = commands.find((c) => line.startsWith(`  ${c.usage}`));
      if (usage && line.length === usage.usage.length + 2) continue;
      expect(line.slice(usage ? usage.usage.length + 2 : 0, column).trim()).toBe('');
      expect(line[column]).not.toBe(' ');
    }
  });

  it.each(commands.map((c) => [[c.group, c.name].filter(Boolean).join(' '), c] as const))('prints the usage of %s with --help (exit 0)', async (_n, c) => {
    const r = await kit(...[c.group, c.name].filter(Boolean), '--help');
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toBe(`usage: npm run kit -- ${c.usage}`);
    expect(r.out.replace(/\s+/g, ' ')).toContain(c.summary.split(' ').slice(0, 6).join(' '));
  });

  it("lists a group's commands with `kit <group> --help`, and says an unknown command is one (exit 2)", async () => {
    const group = await kit('app', '--help');
    expect(group.code).toBe(0);
    expect(group.out).toContain('app create');
    expect(group.out).not.toContain('demo create');
    const unknown = await kit('refund', 'everything');
    expect(unknown.code).toBe(2);
    expect(unknown.said).toMatch(/^unknown command: refund everything\n\nusage:/);
  });
});
