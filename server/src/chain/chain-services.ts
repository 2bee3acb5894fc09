/** Builds the chain feature's services (called from `services.ts`). */
import type { Clock } from '@kit/shared/clock';
import type { Config } from '../config';
import type { DbHandle } from '../db/connect';
import { DeductionCodes } from './deduction-code';
import { DonationService } from './donation-service';
import { LedgerService, type SecretSource } from './ledger-service';
import { LedgerStore } from './ledger-store';
import { loadNodeKey, type NodeKey } from './node-key';
import { PointsService } from './points-service';
import { PointsStore } from './points-store';
import { Sealer } from './sealer';
import { verifyLedger } from './verify';
import { AnchorStore } from './anchor/anchor-store';
import { AnchorProofs } from './anchor/anchor-proofs';

export interface ChainServices {
  ledger: LedgerService;
  donations: DonationService;
  points: PointsService;
  sealer: Sealer;
  nodeKey: NodeKey;
  codes: DeductionCodes;
  /** Re-verifies the whole ledger; `extraKeys` are further trusted signer keys (earlier node keys). */
  verify(extraKeys?: string[]): ReturnType<typeof verifyLedger>;
  stores: { ledger: LedgerStore; points: PointsStore; anchors: AnchorStore };
}

export function createChainServices(config: Config, handle: DbHandle, masterKey: Buffer, secrets: SecretSource, clock: Clock): ChainServices {
  const nodeKey = loadNodeKey({ envKey: config.CHAIN_NODE_KEY, dataDir: config.DATA_DIR });
  const codes = new DeductionCodes(masterKey);
  const ledgerStore = new LedgerStore(handle.db, handle.dialect);
  const pointsStore = new PointsStore(handle.db);
  const anchorStore = new AnchorStore(ledgerStore);
  const ledger = new LedgerService(ledgerStore, pointsStore, secrets, codes, nodeKey, clock, new AnchorProofs(anchorStore, config.CHAIN_ANCHOR_CONTRACT));
  return {
    ledger,
    donations: new DonationService(ledger),
    points: new PointsService(pointsStore, codes, clock),
    sealer: new Sealer(ledgerStore, pointsStore, nodeKey, codes, clock),
    nodeKey,
    codes,
    verify: (extraKeys = []) => verifyLedger(ledgerStore, pointsStore, { trustedKeys: [nodeKey.publicKeyHex, ...extraKeys], codes }),
    stores: { ledger: ledgerStore, points: pointsStore, anchors: anchorStore },
  };
}
