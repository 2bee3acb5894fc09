import type { KitCommand } from '../command';
import { parseCommandArgs, UsageError } from '../command';

export const appCommands: KitCommand[] = [
  {
    group: 'app',
    name: 'create',
    usage: 'app create [--name NAME]',
    summary: 'Creates an app and prints {"appId","appSecret"} once; the secret is never shown again.',
    async run(ctx, args, out) {
      const { values } = parseCommandArgs(args, { name: { type: 'string' } });
      const creds = await ctx.services.apps.create(values.name);
      out(JSON.stringify({ appId: creds.appId, appSecret: creds.appSecret }));
      return 0;
    },
  },
  {
    group: 'app',
    name: 'list',
    usage: 'app list',
    summary: 'Lists apps (ids, names, state; never secrets).',
    async run(ctx, args, out) {
      parseCommandArgs(args, {});
      for (const a of await ctx.services.apps.list()) {
        out(JSON.stringify({ appId: a.app_id, name: a.name, disabled: !!a.disabled, createdAt: new Date(a.created_at).toISOString() }));
      }
      return 0;
    },
  },
  {
    group: 'app',
    name: 'disable',
    usage: 'app disable <appId> [--enable]',
    summary: 'Disables an app (its signatures stop being accepted within 30 s); --enable turns it back on.',
    async run(ctx, args, out) {
      const { values, positionals } = parseCommandArgs(args, { enable: { type: 'boolean', default: false } });
      if (!positionals[0]) throw new UsageError('app disable needs an appId');
      await ctx.services.apps.setDisabled(positionals[0], !values.enable);
      out(JSON.stringify({ appId: positionals[0], disabled: !values.enable }));
      return 0;
    },
  },
];
