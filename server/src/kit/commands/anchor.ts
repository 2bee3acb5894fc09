import type { KitCommand } from '../command';
import { parseCommandArgs, UsageError } from '../command';

export const anchorCommands: KitCommand[] = [
  {
    group: 'chain',
    name: 'anchor',
    usage: 'chain anchor deploy',
    summary: 'Deploys the anchor contract with CHAIN_ANCHOR_KEY at CHAIN_ANCHOR_RPC_URL; prints {contract, chainId, txHash} (set CHAIN_ANCHOR_CONTRACT to it).',
    async run(ctx, args, out, say) {
      const { positionals } = parseCommandArgs(args, {});
      if (positionals.length !== 1 || positionals[0] !== 'deploy') throw new UsageError(`unknown anchor command: ${positionals.join(' ') || '(none)'}`);
      const { CHAIN_ANCHOR_RPC_URL: rpcUrl, CHAIN_ANCHOR_KEY: key } = ctx.config;
      if (!rpcUrl || !key) throw new UsageError('deploying needs CHAIN_ANCHOR_RPC_URL and CHAIN_ANCHOR_KEY in the environment');
      const chain = await (await import('../../chain/anchor/anchor-evm')).AnchorChain.connect(rpcUrl, { key, pollingMs: 250 });
      try {
        const d = await chain.deploy();
        out(JSON.stringify({ contract: d.contract, chainId: d.chainId, txHash: d.txHash }));
        say(`deployed (gas used ${d.gasUsed}); anchor with CHAIN_ANCHOR_CONTRACT=${d.contract} and the same key and RPC URL`);
        return 0;
      } finally {
        chain.destroy();
      }
    },
  },
];
