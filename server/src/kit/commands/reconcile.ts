import { isKitError, KitError } from '@kit/shared';
import type { KitCommand } from '../command';
import { parseCommandArgs, UsageError } from '../command';
import { isChinaDate } from '../../reconciliation/china-day';
import { BillNotReady } from '../../reconciliation/recon-service';

export const reconcileCommands: KitCommand[] = [
  {
    group: 'reconcile',
    name: '',
    usage: 'reconcile --date YYYY-MM-DD [--channel CHANNEL]',
    summary:
      'Reconciles a China date with the channels\' trade bills now (in development, the sandbox\'s bills, through the running service) and prints one JSON report per line, each naming its channel (docs/reconciliation.md): every configured channel that publishes a bill, or the one of --channel; a day without trade is done with zero totals; a bill the channel has not made yet is {channel, state: "pending", error} (the day waits for it); exit 0 unless a bill cannot be had or read ({channel, state: "failed", error}, exit 1, what to do on stderr). A day not done is handed to the daily job, which tries it again.',
    async run(ctx, args, out, say) {
      const { values, positionals } = parseCommandArgs(args, { date: { type: 'string' }, channel: { type: 'string' } });
      if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      if (!values.date || !isChinaDate(values.date)) throw new UsageError('--date must be a date written YYYY-MM-DD');
      const date = values.date;
      const service = ctx.services.reconciliation;
      let channels: string[];
      if (values.channel !== undefined) {
        const channel = values.channel;
        // The channels of the service's wallets (its providers').
        const known = ctx.services.wallets.channels;
        if (!known.includes(channel)) throw new UsageError(`--channel must be one of ${known.join(', ')}`);
        if (!service.channelsWithBills().includes(channel))
          throw new KitError('channel_unavailable', `payment channel ${channel} publishes no bill (docs/reconciliation.md)`);
        channels = [channel];
      } else {
        channels = ctx.services.dailyReconciliation.channels();
        if (!channels.length) throw new KitError('channel_unavailable', 'no payment channel configured here publishes a bill (docs/reconciliation.md)');
      }
      let code = 0;
      for (const channel of channels) {
        try {
          out(JSON.stringify(await service.reconcile(date, channel)));
        } catch (e) {
          if (!isKitError(e)) throw e;
          // A bill the channel has not made yet is no failure: the day waits for it (exit 0).
          const pending = e instanceof BillNotReady;
          if (!pending) code = 1;
          out(JSON.stringify({ date, channel, state: pending ? 'pending' : 'failed', error: pending ? e.message : `${e.error}: ${e.message}` }));
          const at = await ctx.services.dailyReconciliation.retryLater(date, channel);
          const later =
            at === null
              ? 'the daily job has this day due already and keeps trying it (RECONCILE_RETRY_SCHEDULE).'
              : `the service's daily job tries it again from ${new Date(at).toISOString()} (RECONCILE_RETRY_SCHEDULE)${ctx.service ? '' : ' once the service runs'}, or run this command again.`;
          say(
            pending
              ? [`The ${channel} bill of ${date} is not out yet: ${e.message}.`, `The day is pending; ${later}`].join('\n')
              : [`${date} could not be reconciled with the ${channel} bill: ${e.message}`, `The day is marked failed; ${later}`].join('\n'),
          );
        }
      }
      return code;
    },
  },
];
