/**
 * What a stand-in whose platform has routes of its own (`ownRoutes`: its folder `sandbox/src/<wallet>/`)
 * brings to the sandbox besides playing its provider: its side, built with the sandbox while it plays
 * (`sandbox.<name>`, which tests reach through `sandboxOf`), its routes, its faults beside the
 * sandbox's, their descriptions in the reference, how its payer confirms a payment code (7.4) and
 * what `kit demo create` says and sets up for it. The sandbox's own files name none of it: they go
 * through the stand-ins' registry (`index.ts`).
 */
import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { Clock } from '@kit/shared/clock';
import type { PaymentChannel } from '@kit/shared';
import type { Config, RouteDoc } from '@kit/server/plugins/dev-plugin';
import type { Faults } from '../sandbox-faults-shape';

/** What the sandbox's router lends a part's payer routes: CORS, the JSON body, the answer in the payer API's shape. */
export interface PayerHelpers {
  raw: RequestHandler;
  cors: (req: Request, res: Response, next: () => void) => void;
  json: (req: Request) => Record<string, unknown>;
  payer: (fn: (req: Request) => Promise<object>) => (req: Request, res: Response) => Promise<void>;
}

export interface StandInPart<N extends string = string, P = unknown, F extends z.ZodRawShape = z.ZodRawShape> {
  /** Its name on the sandbox (`sandbox.<name>`). */
  name: N;
  /** Why its routes answer 404 when it does not play (the operator gave the platform's settings). */
  notPlayed: string;
  /** Its faults, fields of `POST /sandbox/faults` beside the sandbox's own (docs/sandbox.md). */
  faults?: F;
  /** Its routes in the reference (`/openapi.json`, docs/api.md). */
  routeDocs?: readonly RouteDoc[];
  /** Its payer routes (JSON, open to any origin: preflight answered, other methods 405). */
  payerPaths: readonly string[];
  /** Built with the sandbox when its stand-in plays its provider, under the sandbox's faults and clock. */
  create(config: Config, ctx: { faults: () => Faults & z.output<z.ZodObject<F>>; clock: Clock }): P;
  /** Its platform's own endpoints (what the provider calls), mounted before the sandbox's payer side. */
  platformRoutes?(r: Router, part: P | undefined, raw: RequestHandler): void;
  /** Its payer routes; `part` is undefined when it does not play (they answer 404 `notPlayed`). */
  payerRoutes(r: Router, part: P | undefined, helpers: PayerHelpers): void;
  /** The payer confirms on the phone the payment waiting under a payment code of its wallet: whether one waited. */
  confirmCode?(part: P, code: string): boolean;
  /** What `kit demo create` says of paying with it, and the payment parameters it gives the demo shop. */
  demo?: {
    /** Lines of the demo's step 3 (`sandboxUrl`: the sandbox under the service's URL). */
    paySteps(sandboxUrl: string): string[];
    paymentParams: Array<{ paymentChannel: PaymentChannel; params: Record<string, string> }>;
  };
}

/** Keeps a part's types (its name, its side, its faults). */
export const definePart = <N extends string, P, F extends z.ZodRawShape = Record<never, never>>(part: StandInPart<N, P, F>): StandInPart<N, P, F> => part;
