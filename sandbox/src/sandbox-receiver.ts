/**
 * The development receiver (`/sandbox/receiver`): a merchant endpoint the service hosts itself, so
 * that the demo shop's callbacks arrive somewhere on a fresh machine (`npm run kit -- demo create`
 * points the shop at it). It answers `OK`, checks the signature as a merchant backend must
 * (section 6, with the secret of the app named in `_appid`), and keeps the latest callbacks in
 * memory for the console to show. Development only: it exists when the sandbox does.
 */
import type { Clock } from '@kit/shared/clock';
import { CallbackVerificationError, verifyCallback } from '@kit/shared';

/** Callbacks kept; older ones are forgotten first. */
const KEEP = 200;

export interface ReceivedCallback {
  at: string;
  /** The path and query it was sent to (the signature fields included: they are public). */
  url: string;
  body: string;
  /** `ok`, or why the signature did not verify. */
  signature: string;
  prepayId?: string;
  status?: string;
  subMerchantId?: string;
  merchantId?: string;
}

export class SandboxReceiver {
  private readonly kept: ReceivedCallback[] = [];

  constructor(
    private readonly secretOf: (appId: string) => Promise<string | undefined | null>,
    private readonly clock: Clock,
  ) {}

  async receive(url: string, rawBody: string, now = this.clock.now()): Promise<void> {
    const got: ReceivedCallback = { at: new Date(now).toISOString(), url, body: rawBody, signature: 'ok' };
    try {
      const fields = JSON.parse(rawBody) as Record<string, unknown>;
      for (const k of ['prepayId', 'status', 'subMerchantId', 'merchantId'] as const) if (typeof fields[k] === 'string') got[k] = fields[k];
    } catch {
      // Kept as it came: the console shows what arrived, even when it is not JSON.
    }
    const appId = new URL(url, 'http://receiver').searchParams.get('_appid') ?? '';
    const secret = appId ? await this.secretOf(appId) : undefined;
    if (!secret) got.signature = `unknown app "${appId}"`;
    else {
      try {
        verifyCallback({ method: 'POST', url, rawBody }, secret, { appId, now });
      } catch (e) {
        got.signature = e instanceof CallbackVerificationError ? `${e.reason}: ${e.message}` : String(e);
      }
    }
    this.kept.unshift(got);
    this.kept.length = Math.min(this.kept.length, KEEP);
  }

  /** Newest first; only those about the given merchants when given. */
  list(merchantIds?: readonly string[]): ReceivedCallback[] {
    if (!merchantIds) return [...this.kept];
    return this.kept.filter((c) => merchantIds.includes(c.subMerchantId ?? '') || merchantIds.includes(c.merchantId ?? ''));
  }
}
