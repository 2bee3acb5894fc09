/**
 * What the sandbox platform's parts share about answering protocol calls: the realms it plays,
 * and the business failure a call answers with. Apart from `sandbox-platform.ts` so that the
 * profit-sharing side (`sandbox-profit-sharing.ts`), which the platform calls, does not import it back.
 */
import { AUTHORIZATION_SCHEMA } from './protocol/v3-rules';

/** A realm the sandbox plays (`StandIn.realm`). */
export type SandboxRealm = string;

/** `sign_type` of an order placed over API v3: its notifications go out in v3 (sandbox/v3/); its profit-sharing calls are RSA-signed. */
export const V3_SIGN_TYPE = AUTHORIZATION_SCHEMA;

/** A business failure: answered with `result_code` FAIL and this `err_code`. */
export class ProtocolFail extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
