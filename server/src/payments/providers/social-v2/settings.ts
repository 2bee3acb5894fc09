/**
 * `social-v2`'s settings section: the key protocol v2 signs with, and the sign type of new orders.
 * The platform's address and service-provider ids are `social-v3`'s section (one platform).
 */
import { z } from 'zod';

export function socialV2Settings(production: boolean) {
  return {
    PAY_SP_KEY: (production ? z.string().min(1).optional() : z.string().min(1).default('sandboxSandboxSandboxSandbox0001')).describe(
      "v2: the service provider's API key at the platform (signs protocol messages). In production, without it and a gateway URL the payment endpoints answer 503 `channel_unavailable` saying what to set.",
    ),
    PAY_SIGN_TYPE: z.enum(['MD5', 'HMAC-SHA256']).default('HMAC-SHA256').describe('v2: sign type of new channel orders (v3 signs with RSA).'),
  };
}

export type SocialV2Settings = z.output<z.ZodObject<ReturnType<typeof socialV2Settings>>>;
