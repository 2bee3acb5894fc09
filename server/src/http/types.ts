import type { ApiVersion } from '@kit/shared';
import type { Logger } from 'pino';
import type { CallerGone } from './caller-gone';

/** What the HTTP plumbing leaves on `res.locals` for handlers and the error middleware. */
export interface KitLocals {
  requestId: string;
  log: Logger;
  /** `version` of this route group's answers (section 9). */
  apiVersion: ApiVersion;
  /** The app whose signature was verified (signed routes only). */
  appId?: string;
  /** Set while a held call waits (4.2 waitForFinish): aborts when the caller hangs up. */
  gone?: CallerGone;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The body bytes exactly as received; signatures are checked against these. */
      rawBody?: Buffer;
    }
    // Declaration merging needs an interface, even an empty one.
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Locals extends KitLocals {}
  }
}
