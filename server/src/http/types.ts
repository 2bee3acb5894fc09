import type { ApiVersion } from '@kit/shared';
import type { Logger } from 'pino';
import type { CallerGone } from './caller-gone';
import type { SpentSignature } from '../apps/replay-guard';

/** What the HTTP plumbing leaves on `res.locals` for handlers and the error middleware. */
export interface KitLocals {
  requestId: string;
  log: Logger;
  /** `version` of this route group's answers (section 9). */
  apiVersion: ApiVersion;
  /** The app whose signature was verified (signed routes only). */
  appId?: string;
  /** The verified signature's `_t`: when the caller signed the call, by its clock. */
  signedAt?: number;
  /** Set while a held call waits (4.2 waitForFinish): aborts when the caller hangs up. */
  gone?: CallerGone;
  /** Frees the replay guard's entry of this request's signature (set once it was spent). */
  unspendSignature?: () => Promise<void>;
  /** The signature a route records itself, in its own transaction (`replayInService`); not yet spent. */
  replay?: SpentSignature;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express declares its Request and Locals in this global namespace; merging needs it
  namespace Express {
    interface Request {
      /** The body bytes exactly as received; signatures are checked against these. */
      rawBody?: Buffer;
    }
    // Declaration merging needs an interface, even an empty one.
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging needs an interface, even an empty one
    interface Locals extends KitLocals {}
  }
}
