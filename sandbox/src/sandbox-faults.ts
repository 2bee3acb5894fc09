/**
 * How the sandbox platform misbehaves (docs/sandbox.md), so that anyone can watch the kit converge: set
 * with `POST /sandbox/faults`, shown by `GET /sandbox/faults`, kept in this process's memory until
 * changed or until it restarts. Each post replaces the whole set; `{}` resets it.
 */
import { systemClock, type Clock } from '@kit/shared/clock';
import { z } from 'zod';
import { ALIPAY_METHODS } from './alipay/sandbox-alipay';

export const faultsSchema = z
  .object({
    /** `drop`: a paid order is recorded as paid but its notification is never sent (lost on the network). */
    payNotifications: z.enum(['deliver', 'drop']).default('deliver'),
    /** `hold`: a refund call is accepted on the wire but never answered and not recorded (lost before the platform). */
    refunds: z.enum(['answer', 'hold']).default('answer'),
    /** `drop`: refunds are recorded and answered, but their notification never comes. */
    refundNotifications: z.enum(['deliver', 'drop']).default('deliver'),
    /** `hold`: a profit-sharing split or finish call is accepted on the wire but never answered and not recorded. */
    splits: z.enum(['answer', 'hold']).default('answer'),
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
    // Alipay's gateway (alipay/sandbox-alipay.ts):
    /**
     * Alipay methods refused with the `sub_code` each names (`40004`, e.g. `ACQ.SYSTEM_ERROR`: call again with the same
     * parameters) without doing anything; an `alipay.trade.refund` so refused is received but not taken: its refund query names
     * the `out_request_no` without a `refund_status`.
     */
    alipayRefusals: z.record(z.enum(ALIPAY_METHODS), z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a sub_code: letters, digits, _ . -')).default({}),
    /**
     * How Alipay's refusals are answered: in the method's node and signed (as Alipay answers business errors), in the method's
     * node without `sign` (`unsigned`), or as the gateway's own unsigned `error_response`.
     */
    alipayErrors: z.enum(['signed', 'unsigned', 'error_response']).default('signed'),
    /** How many `alipay.trade.cancel` calls are answered `retry_flag: "Y"` (call again) without cancelling (a payment code's cancel, 7.4). */
    alipayCancelRetries: z.number().int().min(0).max(10).optional(),
    /** The chance (0 to 1) that a v3 notification is preceded by a `WECHATPAY/SIGNTEST/` probe the service must refuse; 0.02 by default, 0 under NODE_ENV=test. */
    v3SignProbes: z.number().min(0).max(1).optional(),
  })
  .strict();

export type Faults = z.output<typeof faultsSchema>;

export class SandboxFaults {
  private faults: Faults;

  /** `defaults`: what `{}` means here (the probe rate is off in tests). */
  constructor(
    private readonly defaults: Partial<Faults> = {},
    private readonly clock: Clock = systemClock,
  ) {
    this.faults = faultsSchema.parse({ ...defaults });
  }

  /** When `mpTokens: "revoked"` was last set (tokens issued until then are refused); undefined while it is not set. */
  mpTokensRevokedAt?: number;

  get current(): Faults {
    return { ...this.faults };
  }

  /** Replaces the faults; throws a ZodError naming what is wrong, changing nothing. */
  set(input: unknown): Faults {
    const given = faultsSchema.parse(input ?? {});
    this.faults = { ...given, v3SignProbes: given.v3SignProbes ?? this.defaults.v3SignProbes };
    this.mpTokensRevokedAt = given.mpTokens === 'revoked' ? this.clock.now() : undefined;
    return this.current;
  }
}
