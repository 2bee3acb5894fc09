import type { PaymentChannel } from '@kit/shared';
import { isKitError, KitError, PAYMENT_CHANNELS } from '@kit/shared';
import type { KitCommand } from '../command';
import { parseCommandArgs, UsageError } from '../command';
import { isChinaDate } from '../../reconciliation/china-day';

export const reconcileCommands: KitCommand[] = [
  {
    group: 'reconcile',
    name: '',
    usage: 'reconcile --date YYYY-MM-DD [--channel CHANNEL]',
    summary:
      'Reconciles a China date with the channel\'s trade bill now (in development, the sandbox\'s bills, through the running service) and prints the report as one JSON document (docs/reconciliation.md); exit 0 when it finished, whatever it found; 1 when the bill is not ready or cannot be read, with {state: "failed", error} on stdout, what to do on stderr, and the day handed to the daily job, which tries it again.',
    async run(ctx, args, out, say) {
      const { values, positionals } = parseCommandArgs(args, { date: { type: 'string' }, channel: { type: 'string' } });
      if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      if (!values.date || !isChinaDate(values.date)) throw new UsageError('--date must be a date written YYYY-MM-DD');
      const service = ctx.services.reconciliation;
      const channels = service.channelsWithBills();
      const channel = (values.channel ?? channels[0]) as PaymentChannel;
      if (!(PAYMENT_CHANNELS as readonly string[]).includes(channel)) throw new UsageError(`--channel must be one of ${PAYMENT_CHANNELS.join(', ')}`);
      if (!channels.includes(channel)) throw new KitError('channel_unavailable', `payment channel ${channel} publishes no bill (docs/reconciliation.md)`);
      try {
        out(JSON.stringify(await service.reconcile(values.date, channel)));
        return 0;
      } catch (e) {
        if (!isKitError(e)) throw e;
        out(JSON.stringify({ date: values.date, channel, state: 'failed', error: `${e.error}: ${e.message}` }));
        const at = await ctx.services.dailyReconciliation.retryLater(values.date, channel);
        say(
          [
            `${values.date} could not be reconciled with the ${channel} bill: ${e.message}`,
            at === null
              ? 'The daily job has this day pending already and keeps trying it (RECONCILE_RETRY_SCHEDULE).'
              : `The day is marked failed; the service's daily job tries it again from ${new Date(at).toISOString()} (RECONCILE_RETRY_SCHEDULE)${ctx.service ? '' : ' once the service runs'}, or run this command again.`,
          ].join('\n'),
        );
        return 1;
      }
    },
  },
];
