/**
 * `npm run kit -- <group> <command> [args]`: the operator's admin command. It reads the same
 * settings as the service (the environment over the settings file, `settings-file.ts`) and finds the
 * service running on its DATA_DIR (`service-file.ts`): it reaches the service at its real address,
 * and refuses to run when its settings would make it act on another database or port.
 */
import { loadConfig } from '../configuration';
import { createLogger } from '../logger';
import { openServices } from '../runtime';
import { ListeningUrl } from '../self-url';
import { runningService } from '../service-file';
import { readSettings } from '../settings-file';
import { KitError } from '@kit/shared';
import { commands } from './commands';
import { UsageError } from './command';
import { asksForHelp, commandHelp, generalHelp } from './help';
import { disagreements, refusal } from './service-check';

export async function runKit(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  out = (l: string) => console.log(l),
  say = (l: string) => console.error(l),
): Promise<number> {
  const [group, name, ...more] = argv;
  if (!group || group === 'help' || group === '--help' || group === '-h') {
    out(generalHelp(commands));
    return 0;
  }
  // A command without a sub-command name (`reconcile --date …`) takes everything after its group.
  const command = commands.find((c) => c.group === group && c.name === name) ?? commands.find((c) => c.group === group && c.name === '');
  const rest = command?.name === '' ? argv.slice(1) : more;
  if (!command) {
    const ofGroup = commands.filter((c) => c.group === group);
    // `kit app --help`: the group's commands.
    if (ofGroup.length && asksForHelp(argv.slice(1))) {
      out(generalHelp(ofGroup));
      return 0;
    }
    say(`unknown command: ${[group, name].filter(Boolean).join(' ')}\n\n${generalHelp(commands)}`);
    return 2;
  }
  if (asksForHelp(rest)) {
    out(commandHelp(command));
    return 0;
  }
  const settings = readSettings(env);
  const config = loadConfig({ LOG_LEVEL: 'silent', ...settings.env });
  const service = runningService(config.DATA_DIR);
  if (service) {
    const problems = disagreements(config, settings.env, service);
    if (problems.length) {
      say(refusal(service, problems, settings.file));
      return 1;
    }
  }
  // The sandbox's gateways hang off the running service's own URL (`self-url.ts`).
  const selfUrl = new ListeningUrl(service?.url ?? config.PUBLIC_URL).read;
  const ctx = { config, service, ...(await openServices(config, createLogger(config.LOG_LEVEL), { selfUrl })) };
  try {
    return await command.run(ctx, rest, out, say);
  } catch (e) {
    if (e instanceof UsageError) {
      say(`${e.message}\nusage: npm run kit -- ${command.usage}`);
      return 2;
    }
    if (e instanceof KitError) {
      say(`${e.error}: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await ctx.db.close();
  }
}

// Run directly under tsx (CommonJS); the compiled command is an ES module that `server/kit.mjs` calls instead.
if (typeof module !== 'undefined' && require.main === module) {
  runKit(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
