/**
 * How the sandbox platform misbehaves (docs/sandbox.md), so that anyone can watch the kit converge: set
 * with `POST /sandbox/faults`, shown by `GET /sandbox/faults`, kept in this process's memory until
 * changed or until it restarts. Each post replaces the whole set; `{}` resets it.
 */
import { systemClock, type Clock } from '@kit/shared/clock';
import { z } from 'zod';
import { PARTS } from './stand-ins';
import { sandboxFaultsShape, type Faults } from './sandbox-faults-shape';

/** The faults of the stand-ins' parts (`stand-ins/part.ts`): each part reads its own, typed by its shape. */
const partFaults = Object.assign({}, ...PARTS.map((p) => p.faults ?? {})) as Record<never, never>;

const { v3SignProbes, ...sandboxOwn } = sandboxFaultsShape;

export const faultsSchema = z
  .object({
    ...sandboxOwn,
    // The stand-ins' own (Alipay's gateway: its refusals, how it answers them, a code's cancel).
    ...partFaults,
    v3SignProbes,
  })
  .strict();

export type { Faults };

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
