import type { KitCommand } from '../command';
import { parseCommandArgs } from '../command';

export const chainCommands: KitCommand[] = [
  {
    group: 'chain',
    name: 'verify',
    usage: 'chain verify [--trust KEY,KEY]',
    summary: 'Re-verifies every block, link, signature, Merkle root and item; reports the first inconsistency (exit 1).',
    async run(ctx, args, out) {
      const { values } = parseCommandArgs(args, { trust: { type: 'string' } });
      const extra =
        values.trust
          ?.split(',')
          .map((k) => k.trim())
          .filter(Boolean) ?? [];
      const report = await ctx.services.chain.verify(extra);
      out(JSON.stringify({ ...report, nodePublicKey: ctx.services.chain.nodeKey.publicKeyHex }));
      return report.ok ? 0 : 1;
    },
  },
  {
    group: 'chain',
    name: 'key',
    usage: 'chain key',
    summary: "Prints this node's ed25519 public key (hex and PEM), the key block signatures are checked against.",
    async run(ctx, args, out) {
      parseCommandArgs(args, {});
      out(JSON.stringify({ publicKey: ctx.services.chain.nodeKey.publicKeyHex, pem: ctx.services.chain.nodeKey.publicKeyPem }));
      return 0;
    },
  },
  {
    group: 'chain',
    name: 'seal',
    usage: 'chain seal',
    summary: 'Seals what is queued now (normally the running service does this about once a second).',
    async run(ctx, args, out) {
      parseCommandArgs(args, {});
      let total = { blocks: 0, confirmed: 0, failed: 0 };
      for (;;) {
        const r = await ctx.services.chain.sealer.sealOnce();
        total = { blocks: total.blocks + (r.block ? 1 : 0), confirmed: total.confirmed + r.confirmed, failed: total.failed + r.failed };
        if (!r.more) break;
      }
      out(JSON.stringify(total));
      return 0;
    },
  },
];
