/**
 * The sandbox's routes read JSON bodies by the service's own rules, which the plug-in contract
 * hands it (`RequestRules`): a body nested deeper than 64 levels (checked before parsing), not
 * UTF-8 or not JSON, or holding a NUL or a lone surrogate is refused before any rule of the sandbox
 * sees it. Each route answers the refusal in its own protocol's words.
 */
import { KitError } from '@kit/shared';
import type { RequestRules } from '@kit/server/plugins/dev-plugin';

export type JsonObjectRead = { object: Record<string, unknown> } | { refused: string };

/** A request body read as a JSON object, or why it is refused. */
export function readJsonObject(rules: RequestRules, body: unknown): JsonObjectRead {
  let v: unknown;
  try {
    v = rules.parseJson(Buffer.isBuffer(body) ? body : Buffer.alloc(0));
  } catch (e) {
    if (e instanceof KitError) return { refused: e.message };
    throw e;
  }
  return v && typeof v === 'object' && !Array.isArray(v) ? { object: v as Record<string, unknown> } : { refused: 'the body must be a JSON object' };
}
