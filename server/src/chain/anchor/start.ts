/** Starts the anchoring worker when CHAIN_ANCHOR_RPC_URL, CHAIN_ANCHOR_KEY and CHAIN_ANCHOR_CONTRACT are all set (docs/chain.md, "Anchors"). */
import type { Logger } from 'pino';
import type { Clock } from '@kit/shared/clock';
import type { Config } from '../../config';
import type { DbHandle } from '../../db/connect';
import type { ChainServices } from '../chain-services';
import type { Metrics } from '../../metrics/metrics';
import type { Loop } from '../../jobs/loop';
import { PgAnchorLock, soleAnchorer } from './anchor-lock';
import { Anchorer, startAnchorer } from './anchorer';

export function startAnchoring(
  config: Config,
  db: DbHandle,
  services: { chain: ChainServices; metrics: Metrics; clock: Clock },
  log: Logger,
): Loop | undefined {
  const { CHAIN_ANCHOR_RPC_URL: rpcUrl, CHAIN_ANCHOR_KEY: key, CHAIN_ANCHOR_CONTRACT: contract } = config;
  if (!rpcUrl || !key || !contract) {
    if (rpcUrl || contract)
      log.warn(
        { rpcUrl: !!rpcUrl, key: !!key, contract: !!contract },
        'anchoring is off: it needs CHAIN_ANCHOR_RPC_URL, CHAIN_ANCHOR_KEY and CHAIN_ANCHOR_CONTRACT',
      );
    return undefined;
  }
  const { metrics } = services;
  const interval = config.CHAIN_ANCHOR_INTERVAL;
  const anchorer = new Anchorer(
    services.chain.stores.anchors,
    db.pool ? new PgAnchorLock(db.pool) : soleAnchorer,
    // Receipts are polled at most every 4 s, and faster when anchors are frequent (tests, local nodes).
    // ethers is loaded here, not with the service: without anchoring it is never needed.
    async () =>
      (await import('./anchor-evm')).AnchorChain.connect(rpcUrl, { key, contract, pollingMs: Math.max(50, Math.min(4_000, Math.round(interval / 4))) }),
    // A transaction still unmined after an interval, below the fees the node asks by then, is re-priced.
    { contract, confirmations: config.CHAIN_ANCHOR_CONFIRMATIONS, repriceAfterMs: interval },
    {
      progress: (p) => metrics.chainAnchorProgress(p),
      failure: (reason) => metrics.chainAnchorFailed(reason),
      anchored: (blocks) => metrics.chainAnchored(blocks),
      resent: (nonce) => metrics.chainAnchorResent(nonce),
      repriced: () => metrics.chainAnchorRepriced(),
    },
    log.child({ part: 'chain-anchorer' }),
    services.clock,
  );
  log.info({ contract, interval }, 'anchoring ledger blocks on the EVM chain');
  return startAnchorer(anchorer, interval, log, services.clock);
}
