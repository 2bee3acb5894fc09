/**
 * How the sandbox platform misbehaves (docs/sandbox.md), so that anyone can watch the kit converge: set
 * with `POST /sandbox/faults`, shown by `GET /sandbox/faults`, kept in this process's memory until
 * changed or until it restarts. Each post replaces the whole set; `{}` resets it.
 */
import { z } from 'zod';

export const faultsSchema = z
  .object({
    /** `drop`: a paid order is recorded as paid but its notification is never sent (lost on the network). */
    payNotifications: z.enum(['deliver', 'drop']).default('deliver'),
    /** `hold`: a refund call is accepted on the wire but never answered and not recorded (lost before the platform). */
    refunds: z.enum(['answer', 'hold']).default('answer'),
    /** `drop`: refunds are recorded and answered, but their notification never comes. */
    refundNotifications: z.enum(['deliver', 'drop']).default('deliver'),
  })
  .strict();

export type Faults = z.output<typeof faultsSchema>;

export class SandboxFaults {
  private faults: Faults = faultsSchema.parse({});

  get current(): Faults {
    return { ...this.faults };
  }

  /** Replaces the faults; throws a ZodError naming what is wrong, changing nothing. */
  set(input: unknown): Faults {
    this.faults = faultsSchema.parse(input ?? {});
    return this.current;
  }
}
