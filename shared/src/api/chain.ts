/** 4.14 batch chain upload, 4.15 on-chain id lookup and the inclusion proof: limits, shapes, answers. */
import { z } from 'zod';
import { CHAIN_VERSION, NO_CONTROL_CHARS } from './common';

/** Limits of section 8. */
export const MAX_UPLOAD_ITEMS = 50;
export const MAX_ITEM_BYTES = 50 * 1024;
export const MAX_LOOKUP_ITEMS = 500;

/** The action catalogue (docs/chain.md); each type's `args` schema lives with the server's ledger rules. */
export const ACTION_TYPES = ['record', 'donation.project', 'donation.donate', 'points.create', 'points.issue', 'points.transfer', 'chainPay'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** `args.id` and the lookup `id`: the caller's own id. */
export const localIdSchema = z
  .string({ invalid_type_error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .regex(NO_CONTROL_CHARS, 'must not contain control characters');

/** The envelope; the count is checked before each item so that the limit error is the one reported. */
export const uploadRequestSchema = z.object({ items: z.array(z.unknown()).min(1, 'must hold at least one item') }).strict();

export const uploadItemSchema = z
  .object({
    type: z.string({ required_error: 'is required' }).min(1).max(64),
    args: z.record(z.unknown(), { invalid_type_error: 'must be an object' }),
  })
  .strict();
export type UploadItem = { type: ActionType | (string & {}); args: { id: string } & Record<string, unknown> };

export const lookupRequestSchema = z.object({ items: z.array(z.unknown()).min(1, 'must hold at least one item') }).strict();

export const QUERY_TYPES = ['i2c', 'c2i'] as const;
export const lookupItemSchema = z
  .object({
    type: z.string().min(1).max(64),
    id: z.string().min(1, 'must not be empty').max(1024),
    queryType: z.enum(QUERY_TYPES),
  })
  .strict();
export type LookupItem = z.infer<typeof lookupItemSchema>;

/** 4.14: accepted and queued (not yet on chain). */
export const uploadResponseSchema = z.object({ version: z.literal(CHAIN_VERSION), status: z.literal('pending') });
export type UploadResponse = z.infer<typeof uploadResponseSchema>;

/** One lookup answer: confirmed, pending (`{id: ""}`) or failed/unknown (`{}`). */
export const lookupResultSchema = z.union([
  z.object({ id: z.string().min(1), chainTrxId: z.string(), chainBlockNum: z.string() }),
  z.object({ id: z.literal('') }),
  z.record(z.never()),
]);
export type LookupResult = z.infer<typeof lookupResultSchema>;

/** 4.15: `items[i]` answers the request's `items[i]`. */
export const lookupResponseSchema = z.object({ version: z.literal(CHAIN_VERSION), status: z.literal('success'), items: z.array(lookupResultSchema) });
export type LookupResponse = z.infer<typeof lookupResponseSchema>;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex characters');

/** How an anchored range's leaves are made from its block hashes (`anchorLeaf` in `anchor.ts`, docs/chain.md "What is anchored"). */
export const ANCHOR_LEAF_RULES = ['rfc6962', 'raw'] as const;
export type AnchorLeafRule = (typeof ANCHOR_LEAF_RULES)[number];

/** The proof of inclusion of a confirmed item; the fields of `AnchoredProof` in `anchor.ts` (`ChainProof` of `merkle.ts` plus its anchor). */
export const proofResponseSchema = z.object({
  version: z.literal(CHAIN_VERSION),
  status: z.literal('success'),
  id: hex64,
  chainTrxId: hex64,
  chainBlockNum: z.string(),
  content: z.string(),
  tx: z.string(),
  leafIndex: z.number().int().nonnegative(),
  treeSize: z.number().int().positive(),
  auditPath: z.array(hex64),
  block: z.object({ number: z.number().int(), prevHash: hex64, merkleRoot: hex64, time: z.number(), txCount: z.number().int() }),
  blockHash: hex64,
  signature: z.string().regex(/^[0-9a-f]+$/, 'must be hex'),
  nodePublicKey: hex64,
  /** Once the block is anchored on an EVM chain (docs/chain.md, "Anchors"). */
  anchor: z
    .object({
      chainId: z.number().int().positive(),
      contract: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
      txHash: z.string().regex(/^0x[0-9a-f]{64}$/),
      evmBlockNumber: z.number().int().nonnegative(),
      fromBlock: z.number().int().positive(),
      toBlock: z.number().int().positive(),
      root: z.string().regex(/^0x[0-9a-f]{64}$/),
      leafRule: z.enum(ANCHOR_LEAF_RULES).optional(),
      leafIndex: z.number().int().nonnegative(),
      auditPath: z.array(hex64),
    })
    .optional(),
});
export type ProofResponse = z.infer<typeof proofResponseSchema>;
/** The item is still queued: no proof yet. */
export const proofPendingSchema = z.object({ version: z.literal(CHAIN_VERSION), status: z.literal('pending') });
export type ProofPending = z.infer<typeof proofPendingSchema>;
export const proofAnswerSchema = z.discriminatedUnion('status', [proofResponseSchema, proofPendingSchema]);
export type ProofAnswer = z.infer<typeof proofAnswerSchema>;

/** On-chain ids are hex SHA-256. */
export const chainIdSchema = z.string().regex(/^[0-9a-f]{64}$/, 'must be an on-chain id (64 lower-case hex characters)');
