/**
 * `SocialNative` over API v3, put together from configuration: the merchant's credentials (the
 * settings: the operator's, or those a development plug-in hands the provider it plays,
 * `payments/providers/played.ts`), the platform keys (public-key or certificate mode), the
 * verifying client with the backup domain, and what the rest of the service asks of the channel:
 * its order and profit-sharing calls, its bills, the payer arguments signed with the merchant key,
 * and its notifications read. Credentials are read on first use, so that a service without any
 * (production before the account is set up, or a service whose gateway is another instance's
 * sandbox and which was given none) answers 503 `channel_unavailable` naming the settings, as on v2.
 */
import type { Clock } from '@kit/shared/clock';
import type { KeyObject } from 'node:crypto';
import { KitError } from '@kit/shared';
import { unconfigured } from '../protocol-v2/merchant';
import type { BillText, OrderCalls, ProfitSharingCalls } from '../protocol-v2/types';
import type { ServiceSettings } from '../provider';
import { billsV3 } from './bill-v3';
import { V3Client, type V3CallLog } from './client';
import { v3Credentials, V3SettingsError, V3_KEY_SETTINGS, type V3Credentials, type V3Settings } from './credentials';
import { notificationFacts, type NotificationFacts } from './notification-facts';
import type { SocialSettings } from './settings';
import { appArgs, miniProgramArgs, type V3AppArgs, type V3MiniProgramArgs } from './payer-args';
import { CertificateSource, PublicKeySource, type PlatformKeySource } from './platform-key-source';
import type { PlatformKey } from './platform-keys';
import { unixSeconds } from './sign';
import { V3Calls } from './v3-calls';
import type { SignedHeaders, VerifyResult } from './verify';

const WHAT_TO_SET =
  'PAY_SP_PRIVATE_KEY, PAY_SP_CERT_SERIAL, PAY_V3_KEY, and PAY_PLATFORM_PUBLIC_KEY with PAY_PLATFORM_PUBLIC_KEY_ID (or neither: certificate mode)';

/**
 * The v3 settings in effect: the configured ones when any key setting is given (a development
 * plug-in that plays the platform hands its own when the operator gave none); otherwise none. The
 * service makes no key material itself.
 */
export function effectiveV3Settings(config: ServiceSettings & SocialSettings): V3Settings | undefined {
  return V3_KEY_SETTINGS.some((k) => config[k] !== undefined) ? config : undefined;
}

/**
 * The platform over API v3: its calls (every answer verified before it is read), its bills, the
 * payer arguments signed with the merchant's RSA key, and its notifications read.
 */
export interface V3Side {
  calls: OrderCalls & ProfitSharingCalls & Pick<V3Calls, 'codePay' | 'reverse'>;
  bills: { download(date: string): Promise<BillText> };
  miniProgramArgs(appId: string, prepayId: string): V3MiniProgramArgs;
  appArgs(ids: { appid: string; partnerid: string }, prepayId: string): V3AppArgs;
  notification(kind: 'pay' | 'refund', headers: SignedHeaders, rawBody: string): Promise<NotificationFacts>;
  /** The service's clock. */
  clock: Clock;
}

export class SocialV3 implements V3Side {
  readonly calls: V3Calls;
  readonly bills: V3Side['bills'];
  private creds?: V3Credentials;
  private keySource?: PlatformKeySource;
  private client?: { baseUrl: string; client: V3Client };

  constructor(
    private readonly config: ServiceSettings & SocialSettings & { PAY_GATEWAY_BACKUP_URL?: string },
    /** The platform's base URL, known once the service listens when it is the service's own sandbox. */
    private readonly baseUrl: () => string | undefined,
    notifyUrl: (kind: 'pay' | 'refund') => string,
    readonly clock: Clock,
    private readonly log?: V3CallLog,
  ) {
    // Both read the keys and the client lazily: nothing is needed before the first call.
    const keys: PlatformKeySource = {
      verify: (h, body) => this.keys().verify(h, body),
      encryptionKey: () => this.keys().encryptionKey(),
      acceptSerial: () => this.keys().acceptSerial(),
    };
    this.calls = new V3Calls(() => this.v3Client(), keys, notifyUrl);
    this.bills = billsV3(() => this.v3Client());
  }

  credentials(): V3Credentials {
    if (!this.creds) {
      const settings = effectiveV3Settings(this.config);
      if (!settings) unconfigured(WHAT_TO_SET);
      try {
        this.creds = v3Credentials(settings);
      } catch (e) {
        if (e instanceof V3SettingsError) throw new KitError('channel_unavailable', `the payment channel is not configured: ${e.message}`);
        throw e;
      }
    }
    return this.creds;
  }

  /** The platform keys answers and notifications are verified with. */
  keys(): PlatformKeySource {
    if (!this.keySource) {
      const c = this.credentials();
      const certificates = (publicKey?: PlatformKey) =>
        new CertificateSource(
          () => this.v3Client(),
          c.apiV3Key,
          () => this.clock.now(),
          publicKey,
        );
      // Public-key mode keeps the certificates at hand for a merchant in the middle of the switch.
      this.keySource =
        c.platform.mode === 'public-key'
          ? new PublicKeySource(
              c.platform.id,
              c.platform.publicKey,
              () => this.clock.now(),
              certificates({ id: c.platform.id, publicKey: c.platform.publicKey }),
            )
          : certificates();
    }
    return this.keySource;
  }

  v3Client(): V3Client {
    const baseUrl = this.baseUrl();
    if (!baseUrl) unconfigured('PAY_GATEWAY_URL');
    if (this.client?.baseUrl !== baseUrl) {
      const client = new V3Client(
        {
          baseUrl,
          backupUrl: this.config.PAY_GATEWAY_BACKUP_URL,
          signer: this.credentials().signer,
          timeoutMs: this.config.PAY_GATEWAY_TIMEOUT,
          clock: this.clock,
          log: this.log,
          channel: 'SocialNative',
        },
        {
          verify: (h: SignedHeaders, body: string): Promise<VerifyResult> => this.keys().verify(h, body),
          acceptSerial: () => this.keys().acceptSerial(),
        },
      );
      this.client = { baseUrl, client };
    }
    return this.client.client;
  }

  private get privateKey(): KeyObject {
    return this.credentials().signer.privateKey;
  }

  /** 4.4: `signType: "RSA"`, `paySign` with the merchant API private key. */
  miniProgramArgs(appId: string, prepayId: string): V3MiniProgramArgs {
    return miniProgramArgs(appId, prepayId, this.privateKey, unixSeconds(this.clock.now()));
  }

  /** 4.5: the app arguments, `sign` with the merchant API private key. */
  appArgs(ids: { appid: string; partnerid: string }, prepayId: string): V3AppArgs {
    return appArgs(ids, prepayId, this.privateKey, String(unixSeconds(this.clock.now())));
  }

  /** A notification's headers verified (certificate mode fetches certificates for an unknown serial), its resource decrypted and read. */
  notification(kind: 'pay' | 'refund', headers: SignedHeaders, rawBody: string): Promise<NotificationFacts> {
    return notificationFacts(kind, headers, rawBody, this.keys(), this.credentials().apiV3Key);
  }
}
