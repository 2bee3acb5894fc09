/**
 * The sandbox's own faults (docs/sandbox.md): the fields of `POST /sandbox/faults` beside those of the
 * stand-ins' parts (`stand-ins/part.ts`), which `sandbox-faults.ts` adds.
 */
import { z } from 'zod';

export const sandboxFaultsShape = {
  /** `drop`: a paid order is recorded as paid but its notification is never sent (lost on the network). */
  payNotifications: z.enum(['deliver', 'drop']).default('deliver'),
  /** `hold`: a refund call is accepted on the wire but never answered and not recorded (lost before the platform). */
  refunds: z.enum(['answer', 'hold']).default('answer'),
  /** `drop`: refunds are recorded and answered, but their notification never comes. */
  refundNotifications: z.enum(['deliver', 'drop']).default('deliver'),
  /** `hold`: a profit-sharing split or finish call is accepted on the wire but never answered and not recorded. */
  splits: z.enum(['answer', 'hold']).default('answer'),
  /**
   * How many reverse calls of each social payment code order are answered "call again" without reversing it (protocol v2's
   * `recall: Y` with `SYSTEMERROR`, API v3's `recall: true`); none by default.
   */
  reverseRecalls: z.number().int().min(0).max(10).default(0),
  // Trade bills (docs/reconciliation.md), so that anyone can watch reconciliation find differences:
  /** How many invented payments each bill carries that the kit never saw (`channel_only`); the same ones for the same day. */
  billExtraPayments: z.number().int().min(0).max(100).default(0),
  /** `out_trade_no`s whose amount the bill states one cent higher (`amount_mismatch`). */
  billAmountChanged: z.array(z.string().min(1).max(64)).max(100).default([]),
  /** `out_trade_no`s (payments) and `out_refund_no`s (refunds) the bill leaves out (`kit_only`). */
  billOmitted: z.array(z.string().min(1).max(64)).max(100).default([]),
  /** `out_trade_no`s the platform books on the next day (paid just before midnight here, just after there): `kit_only`, then found the next day. */
  billNextDay: z.array(z.string().min(1).max(64)).max(100).default([]),
  /** `creating`: every bill is still being made (not ready); `truncated`: bills are cut short in the middle of their lines. */
  bills: z.enum(['ready', 'creating', 'truncated']).default('ready'),
  // API v3 (sandbox/v3/):
  /**
   * What `Wechatpay-Serial` names: the platform public-key id (`PUB_KEY_ID_…`), the platform certificate's serial (certificate
   * mode), or either (`switching`: a merchant in the middle of the move to the public key; see `v3PublicKeyShare`).
   */
  v3Serial: z.enum(['public-key', 'certificate', 'switching']).default('public-key'),
  /**
   * `v3Serial: "switching"`: the share (0 to 1) of notifications, and of answers to requests naming the public-key id in
   * `Wechatpay-Serial`, signed with the public key, spread evenly (0.5: by turns); the rest, and every answer to a request
   * not naming it, with the certificate. 0.5 when not given.
   */
  v3PublicKeyShare: z.number().min(0).max(1).optional(),
  /**
   * `rotated`: the platform moves to a new certificate: `/v3/certificates` lists both, and certificate-mode signatures name
   * the new one. `none`: a merchant who never had certificates: `/v3/certificates` answers 404 `RESOURCE_NOT_EXISTS`.
   */
  v3Certificates: z.enum(['current', 'rotated', 'none']).default('current'),
  /**
   * Who signs the `/v3/certificates` answer: a certificate it lists (`listed`, when not given), or the key the request names
   * in `Wechatpay-Serial` (`requested`): the public key when it names the public-key id, as the platform signs the other
   * answers of a merchant who asks for it, a listed certificate otherwise.
   */
  v3CertificatesSigner: z.enum(['listed', 'requested']).optional(),
  // The mini-program's server API (sandbox-mp.ts):
  /**
   * `revoked`: every access token `stable_token` handed out before these faults were set is refused with errcode 40001, as
   * when someone else forced a refresh; tokens handed out afterwards work. Each post naming it revokes again.
   */
  mpTokens: z.enum(['valid', 'revoked']).default('valid'),
  /** The chance (0 to 1) that a v3 notification is preceded by a `WECHATPAY/SIGNTEST/` probe the service must refuse; 0.02 by default, 0 under NODE_ENV=test. */
  v3SignProbes: z.number().min(0).max(1).optional(),
};

/** The faults as the sandbox and its parts read them (a part reads its own beside these, typed by its shape). */
export type Faults = z.output<z.ZodObject<typeof sandboxFaultsShape>>;
