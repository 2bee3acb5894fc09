/** Request id, access log line and timing. The id is echoed as `x-request-id` and as `traceId` on failures. */
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import { PAY_VERSION } from '@kit/shared';

const INCOMING_ID = /^[0-9A-Za-z._-]{8,64}$/;

/** Unique per process start plus a counter: cheaper than random bytes per request, still unique across instances. */
const PREFIX = randomBytes(4).toString('hex');
let counter = 0;

/**
 * The per-request logger: the pino child carrying `reqId` is built only when a line is written,
 * which on the hot path is never (a child per request is measurably slower: docs/performance.md, "What the speed tricks buy").
 */
class RequestLog {
  private child?: Logger;
  constructor(
    private readonly root: Logger,
    private readonly reqId: string,
  ) {}
  private get log(): Logger {
    return (this.child ??= this.root.child({ reqId: this.reqId }));
  }
  isLevelEnabled(level: string) {
    return this.root.isLevelEnabled(level);
  }
  error(obj: object, msg?: string) {
    if (this.root.isLevelEnabled('error')) this.log.error(obj, msg);
  }
  warn(obj: object, msg?: string) {
    if (this.root.isLevelEnabled('warn')) this.log.warn(obj, msg);
  }
  info(obj: object, msg?: string) {
    if (this.root.isLevelEnabled('info')) this.log.info(obj, msg);
  }
  debug(obj: object, msg?: string) {
    if (this.root.isLevelEnabled('debug')) this.log.debug(obj, msg);
  }
}

/** Told about every finished request (the metrics); `seconds` from arrival to the end of the answer. */
export type RequestObserver = (req: Request, res: Response, seconds: number) => void;

export function requestContext(log: Logger, observe?: RequestObserver): RequestHandler {
  const logging = log.isLevelEnabled('info');
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : `${PREFIX}${(counter++).toString(36).padStart(6, '0')}`;
    res.locals.requestId = requestId;
    res.locals.apiVersion = PAY_VERSION;
    res.locals.log = new RequestLog(log, requestId) as unknown as Logger;
    res.setHeader('x-request-id', requestId);
    if (logging || observe) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        observe?.(req, res, ms / 1000);
        if (!logging) return;
        // Path only: queries carry signatures and login tokens, which never go into a log.
        const fields = { method: req.method, path: req.originalUrl.split('?', 1)[0], status: res.statusCode, ms: Math.round(ms * 10) / 10 };
        if (res.statusCode >= 500) res.locals.log.error(fields, 'request');
        // A 4xx a route marked as the expected answer (the sandbox's "no bill for this day") is no event for a person.
        else if (res.locals.expectedAnswer) res.locals.log.debug(fields, 'request');
        else res.locals.log.info(fields, 'request');
      });
    }
    next();
  };
}
