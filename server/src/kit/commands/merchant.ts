import type { KitCommand } from '../command';
import { parseCommandArgs, UsageError } from '../command';

export const merchantCommands: KitCommand[] = [
  {
    group: 'merchant',
    name: 'contract',
    usage: 'merchant contract <merchantId> [--revoke]',
    summary: 'Marks a merchant as contracted for profit sharing (or revokes it).',
    async run(ctx, args, out) {
      const { values, positionals } = parseCommandArgs(args, { revoke: { type: 'boolean', default: false } });
      if (!positionals[0]) throw new UsageError('merchant contract needs a merchant id');
      await ctx.services.merchants.setContracted(positionals[0], !values.revoke);
      out(JSON.stringify({ id: positionals[0], profitSharingContracted: !values.revoke }));
      return 0;
    },
  },
  {
    group: 'merchant',
    name: 'disable',
    usage: 'merchant disable <merchantId> [--enable]',
    summary: 'Disables a merchant: no logins, no new orders (or enables it again).',
    async run(ctx, args, out) {
      const { values, positionals } = parseCommandArgs(args, { enable: { type: 'boolean', default: false } });
      if (!positionals[0]) throw new UsageError('merchant disable needs a merchant id');
      await ctx.services.merchants.setDisabled(positionals[0], !values.enable);
      out(JSON.stringify({ id: positionals[0], disabled: !values.enable }));
      return 0;
    },
  },
];
