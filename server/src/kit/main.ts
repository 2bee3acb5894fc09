/**
 * `npm run kit -- <group> <command> [args]`: the operator's admin command. It works on the same
 * DATA_DIR / DATABASE_URL as the service, which may be running at the same time.
 */
import { loadConfig } from '../config';
import { createLogger } from '../logger';
import { openServices } from '../runtime';
import { KitError } from '@kit/shared';
import { commands } from './commands';
import { UsageError } from './command';

function help(): string {
  const lines = commands.map((c) => `  ${c.usage.padEnd(44)} ${c.summary}`);
  return `usage: npm run kit -- <command>\n\ncommands:\n${lines.join('\n')}`;
}

export async function runKit(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  out = (l: string) => console.log(l),
  say = (l: string) => console.error(l),
): Promise<number> {
  const [group, name, ...more] = argv;
  // A command without a sub-command name (`reconcile --date …`) takes everything after its group.
  const command = commands.find((c) => c.group === group && c.name === name) ?? commands.find((c) => c.group === group && c.name === '');
  const rest = command?.name === '' ? argv.slice(1) : more;
  if (!command) {
    console.error(group ? `unknown command: ${[group, name].filter(Boolean).join(' ')}\n\n${help()}` : help());
    return group && group !== 'help' ? 2 : 0;
  }
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
  const ctx = { config, ...(await openServices(config, createLogger(config.LOG_LEVEL))) };
  try {
    return await command.run(ctx, rest, out, say);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`${e.message}\nusage: npm run kit -- ${command.usage}`);
      return 2;
    }
    if (e instanceof KitError) {
      console.error(`${e.error}: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await ctx.db.close();
  }
}

if (require.main === module) {
  runKit(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
