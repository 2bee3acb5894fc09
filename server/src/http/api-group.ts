import type { RequestHandler } from 'express';
import type { ApiVersion } from '@kit/shared';
import { jsonBody } from './body';

/**
 * The plumbing every JSON route group shares, in one layer: the `version` its answers carry
 * (section 9) and its body, read raw and parsed, within the group's size limit.
 */
export function apiGroup(version: ApiVersion, bodyLimit: string | number): RequestHandler {
  const body = jsonBody(bodyLimit);
  return (req, res, next) => {
    res.locals.apiVersion = version;
    body(req, res, next);
  };
}
