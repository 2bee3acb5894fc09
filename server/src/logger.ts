import pino, { type Logger } from 'pino';

/** JSON lines on stdout. Secrets never reach it: request logs carry the path, never the query or body. */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: { svc: 'kit' },
      redact: { paths: ['*.pw', '*.appSecret', '*.loginToken', '*.secret', 'req.headers.authorization'], censor: '[redacted]' },
    },
    level === 'silent' ? undefined : pino.destination({ sync: false }),
  );
}
