/** What every front-end router (POS, console, mini-program) answers with, written once. */
import type { RequestHandler } from 'express';
import { PAY_VERSION } from '@kit/shared';

/** A success answer in the specification's shape, with the router's own fields. */
export const ok = <T extends object>(data: T) => ({ version: PAY_VERSION, status: 'success' as const, ...data });

/** Answers about one person's orders and session are never kept by a browser or proxy cache. */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};
