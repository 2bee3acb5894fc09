import type { KitCommand } from '../command';
import { parseCommandArgs, UsageError } from '../command';
import { verifyAnchors } from '../../chain/anchor/verify-anchors';

export const chainCommands: KitCommand[] = [
  {
    group: 'chain',
    name: 'verify',
    usage: 'chain verify [--trust KEY,KEY] [--anchors]',
    summary:
      'Re-verifies every block, link, signature, Merkle root and item, and with --anchors every anchor on the EVM chain; reports the first inconsistency (exit 1).',
    async run(ctx, args, out) {
      const { values } = parseCommandArgs(args, { trust: { type: 'string' }, anchors: { type: 'boolean' } });
      const { CHAIN_ANCHOR_RPC_URL: rpcUrl, CHAIN_ANCHOR_CONTRACT: contract } = ctx.config;
      if (values.anchors && (!rpcUrl || !contract)) throw new UsageError('--anchors needs CHAIN_ANCHOR_RPC_URL and CHAIN_ANCHOR_CONTRACT in the environment');
      const extra =
        values.trust
          ?.split(',')
          .map((k) => k.trim())
          .filter(Boolean) ?? [];
      const report = await ctx.services.chain.verify(extra);
      let anchors;
      if (values.anchors && report.ok) {
        const chain = await (await import('../../chain/anchor/anchor-evm')).AnchorChain.connect(rpcUrl!, { contract });
        try {
          anchors = await verifyAnchors(ctx.services.chain.stores.anchors, chain, rpcUrl!);
        } finally {
          chain.destroy();
        }
      }
      const ok = report.ok && (anchors?.ok ?? true);
      out(JSON.stringify({ ...report, ok, nodePublicKey: ctx.services.chain.nodeKey.publicKeyHex, ...(anchors ? { anchors } : {}) }));
      return ok ? 0 : 1;
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
