import { DonationDecryptError, decryptDonation } from '@kit/shared';
import type { KitCommand } from '../command';
import { parseCommandArgs, UsageError } from '../command';

export const donationCommands: KitCommand[] = [
  {
    group: 'donation',
    name: 'decrypt',
    usage: 'donation decrypt --secret <AppSecret> <ciphertext | on-chain id>',
    summary: 'Decrypts a donation project or record (the AppSecret may instead come from KIT_APP_SECRET).',
    async run(ctx, args, out) {
      const { values, positionals } = parseCommandArgs(args, { secret: { type: 'string' } });
      const secret = values.secret ?? process.env.KIT_APP_SECRET;
      if (!secret) throw new UsageError('give the AppSecret with --secret or KIT_APP_SECRET');
      const target = positionals[0];
      if (!target) throw new UsageError('give a ciphertext ("dn1.…") or an on-chain id');
      if (!/^[0-9a-f]{64}$/.test(target)) {
        try {
          out(decryptDonation(secret, target));
          return 0;
        } catch (e) {
          if (!(e instanceof DonationDecryptError)) throw e;
          console.error(`cannot decrypt: ${e.message}`);
          return 1;
        }
      }
      const rows = await ctx.services.chain.stores.ledger.byChainIds([target]);
      for (const row of rows) {
        const sealed = (JSON.parse(row.content) as { sealed?: string }).sealed;
        if (!sealed) continue;
        try {
          const plain = decryptDonation(secret, sealed);
          out(JSON.stringify({ appId: row.app_id, type: row.type, id: row.local_id, status: row.status, content: JSON.parse(plain) }));
          return 0;
        } catch (e) {
          if (!(e instanceof DonationDecryptError)) throw e;
        }
      }
      console.error(rows.length ? 'no donation with this on-chain id decrypts with this AppSecret' : 'no item has this on-chain id');
      return 1;
    },
  },
];
