import type { KitCommand } from '../command';
import { parseFlags, UsageError } from '../command';

export const merchantCommands: KitCommand[] = [
  {
    group: 'merchant',
    name: 'contract',
    usage: 'merchant contract <merchantId> [--revoke]',
    summary: 'Marks a merchant as contracted for profit sharing (or revokes it).',
    async run(ctx, args, out) {
      const { positional, flags } = parseFlags(args);
      if (!positional[0]) throw new UsageError('merchant contract needs a merchant id');
      await ctx.services.merchants.setContracted(positional[0], !flags.revoke);
      out(JSON.stringify({ id: positional[0], profitSharingContracted: !flags.revoke }));
      return 0;
    },
  },
  {
    group: 'merchant',
    name: 'disable',
    usage: 'merchant disable <merchantId> [--enable]',
    summary: 'Disables a merchant: no logins, no new orders (or enables it again).',
    async run(ctx, args, out) {
      const { positional, flags } = parseFlags(args);
      if (!positional[0]) throw new UsageError('merchant disable needs a merchant id');
      await ctx.services.merchants.setDisabled(positional[0], !flags.enable);
      out(JSON.stringify({ id: positional[0], disabled: !flags.enable }));
      return 0;
    },
  },
];
