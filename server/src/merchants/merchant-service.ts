/**
 * Merchants (4.16, 4.17), logins and payment parameters (4.7). Passwords are scrypt hashes; login
 * tokens are stored as SHA-256 hashes; parameters are stored per merchant and channel and merged
 * field by field with the parent's at read time.
 */
import type { Clock } from '@kit/shared/clock';
import {
  KitError,
  KIT_WALLETS,
  paramsPatchSchema,
  type ChannelParams,
  type ChannelParamsPatch,
  type LoginResponse,
  type PaymentChannel,
  type WalletCatalogue,
  PAY_VERSION,
} from '@kit/shared';
import { createMerchantRequestSchema } from '@kit/shared';
import type { z } from 'zod';
import { hashPassword, verifyPassword } from '../security/password';
import { randomAlnum, randomToken, sha256Hex } from '../security/ids';
import type { AppService } from '../apps/app-service';
import type { MerchantStore } from './merchant-store';
import type { MerchantFacts } from './merchant-facts';
import type { LoginThrottle } from '../security/login-throttle';
import type { OutboundPolicy } from '../security/outbound-url';

type CreateBody = z.output<typeof createMerchantRequestSchema>;

/** Who is logged in, as resolved from a login token. */
export interface LoginIdentity {
  merchantId: string;
  kind: 'merchant' | 'subMerchant';
  displayName: string;
  parentMerchantId: string | null;
}

export class MerchantService {
  /** Reads of effective parameters in flight, by channel and merchant (`paramsRows`). */
  private readonly paramsReads = new Map<string, ReturnType<MerchantStore['paramsWithParent']>>();

  constructor(
    private readonly store: MerchantStore,
    private readonly apps: AppService,
    private readonly facts: MerchantFacts,
    private readonly throttle: LoginThrottle,
    private readonly outbound: OutboundPolicy,
    private readonly clock: Clock,
    /** The wallets of the service's providers: the channels 4.7 takes and their parameters (the kit's by default). */
    private readonly wallets: WalletCatalogue = KIT_WALLETS,
  ) {}

  /** 4.17. The signer must own (or have created) the parent when creating a sub-merchant. */
  async create(signerAppId: string, body: CreateBody): Promise<{ id: string }> {
    const p = body.parameters;
    await this.apps.requireExisting(p.appId);
    let parentId: string | null = null;
    if (body.type === 'subMerchant') {
      const parentIdIn = (p as { parentMerchantId: string }).parentMerchantId;
      const parent = await this.store.find(parentIdIn);
      if (!parent || parent.kind !== 'merchant') throw new KitError('unknown_merchant', `parent merchant "${parentIdIn}" does not exist`);
      if (parent.app_id !== signerAppId && parent.created_by_app_id !== signerAppId) {
        throw new KitError('not_owner', `app "${signerAppId}" does not own parent merchant "${parentIdIn}"`);
      }
      parentId = parent.id;
    }
    const id = `${body.type === 'merchant' ? 'PM' : 'SM'}${randomAlnum(12)}`;
    await this.store.insert({
      id,
      kind: body.type,
      display_name: p.displayName,
      pw_hash: await hashPassword(p.pw),
      disabled: p.disabled ? 1 : 0,
      app_id: p.appId,
      created_by_app_id: signerAppId,
      parent_merchant_id: parentId,
      profit_sharing_contracted: 0,
      created_at: this.clock.now(),
    });
    return { id };
  }

  /**
   * 4.16, and every other merchant login (the POS display, the console): behind the brute-force
   * limit, per account and per `address` (the client's, as the router in front saw it: `req.ip`).
   * An unknown id and a wrong password fail the same way.
   */
  login(userId: string, pw: string, client: { address?: string }): Promise<LoginResponse> {
    return this.throttle.guard({ account: userId, address: client.address }, () => this.checkLogin(userId, pw));
  }

  private async checkLogin(userId: string, pw: string): Promise<LoginResponse> {
    const m = await this.store.find(userId);
    const passwordOk = await verifyPassword(pw, m?.pw_hash ?? null);
    if (!m || !passwordOk) throw new KitError('login_failed');
    if (m.disabled) throw new KitError('merchant_disabled', 'this merchant is disabled and cannot log in');
    if (m.parent_merchant_id && (await this.store.find(m.parent_merchant_id))?.disabled) {
      throw new KitError('merchant_disabled', `the parent merchant "${m.parent_merchant_id}" of this sub-merchant is disabled, so it cannot log in`);
    }
    const token = randomToken();
    await this.store.insertLoginToken(sha256Hex(token), m.id, this.clock.now());
    return {
      version: PAY_VERSION,
      status: 'success',
      displayName: m.display_name,
      userId: m.id,
      loginToken: token,
      parentMerchantId: m.parent_merchant_id,
    };
  }

  /** Resolves a login token; an unknown token or a disabled merchant is a 401. */
  async identify(loginToken: string | undefined): Promise<LoginIdentity> {
    if (!loginToken) throw new KitError('login_invalid', 'loginToken is required');
    const row = await this.store.findByLoginToken(sha256Hex(loginToken));
    if (!row || row.disabled) throw new KitError('login_invalid');
    return { merchantId: row.id, kind: row.kind, displayName: row.display_name, parentMerchantId: row.parent_merchant_id };
  }

  /**
   * Ends one login: the token stops working at once (here and on every instance). The
   * specification's tokens have no expiry, so a login that is over must be revoked, not forgotten.
   * Revoking an unknown or already revoked token is not an error.
   */
  async revokeLogin(loginToken: string): Promise<void> {
    await this.store.deleteLoginToken(sha256Hex(loginToken));
  }

  /**
   * 4.7, a merge (a partial update never drops a field): fields sent are set, fields sent as `null`
   * are cleared, the others stay. Only the owning app may change them; `profitSharing: true` needs a contracted merchant.
   */
  async setPaymentParams(signerAppId: string, id: string, channel: string, parameters: ChannelParamsPatch): Promise<void> {
    const schema = this.wallets.parametersOf(channel);
    if (!schema) throw new KitError('invalid_request', `paymentChannel: no wallet of this service has the channel ${channel}`);
    const m = await this.store.findWithParent(id);
    if (!m) throw new KitError('unknown_merchant', `merchant "${id}" does not exist`);
    if (m.app_id !== signerAppId) throw new KitError('not_owner', `app "${signerAppId}" does not own merchant "${id}"`);
    const patch = paramsPatchSchema(schema).parse(parameters) as ChannelParamsPatch;
    if (patch.profitSharing === true && !m.profit_sharing_contracted) {
      throw new KitError('profit_sharing_not_enabled', 'profitSharing can only be true for a merchant contracted for profit sharing');
    }
    if (typeof patch.notifyCallbackUrl === 'string') await this.outbound.checkUrl(patch.notifyCallbackUrl, 'parameters.notifyCallbackUrl');
    await this.store.mergePaymentParams(id, channel, (current) => {
      const next: Record<string, unknown> = { ...current };
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) delete next[k];
        else if (v !== undefined) next[k] = v;
      }
      return schema.parse(next);
    });
    // A read begun before the change must not answer a caller that comes after it.
    this.paramsReads.clear();
  }

  /** Effective parameters of a merchant for a channel: its own values over its parent's, field by field. */
  async effectivePaymentParams<C extends PaymentChannel>(merchantId: string, channel: C): Promise<Partial<ChannelParams[C]>>;
  /** A channel of any wallet of the service (one the root was given too): its parameters, opaque to the caller. */
  async effectivePaymentParams(merchantId: string, channel: string): Promise<Partial<ChannelParams[PaymentChannel]>>;
  async effectivePaymentParams(merchantId: string, channel: string): Promise<Partial<ChannelParams[PaymentChannel]>> {
    const rows = await this.paramsRows(merchantId, channel);
    if (!rows.length) throw new KitError('unknown_merchant', `merchant "${merchantId}" does not exist`);
    const parent = rows[0].parent_merchant_id;
    const ids = parent ? [parent, merchantId] : [merchantId];
    const byId = new Map(
      rows.flatMap((r) =>
        r.merchant_id && r.params_json ? [[r.merchant_id, JSON.parse(r.params_json) as Partial<ChannelParams[PaymentChannel]>] as const] : [],
      ),
    );
    return Object.assign({}, ...ids.map((i) => byId.get(i) ?? {}));
  }

  /**
   * The rows of one merchant's effective parameters, one read shared by the callers that ask while
   * it is in flight: a rush's callbacks of one shop are claimed and started together, and each read
   * its merchant (a round trip per notification on PostgreSQL, issue 34). Nothing is kept once the
   * read answers, and a change made here starts the next read afresh.
   */
  private paramsRows(merchantId: string, channel: string): ReturnType<MerchantStore['paramsWithParent']> {
    const key = `${channel} ${merchantId}`;
    let read = this.paramsReads.get(key);
    if (!read) {
      const started = this.store.paramsWithParent(merchantId, channel);
      const forget = () => {
        if (this.paramsReads.get(key) === started) this.paramsReads.delete(key);
      };
      started.then(forget, forget);
      this.paramsReads.set(key, (read = started));
    }
    return read;
  }

  find(id: string) {
    return this.store.find(id);
  }

  /** The sub-merchants of a parent merchant (the console's merchant filter). */
  children(parentId: string) {
    return this.store.children(parentId);
  }

  findWithParent(id: string) {
    return this.store.findWithParent(id);
  }

  /** Operator switch (kit): marks a merchant as contracted for profit sharing. */
  async setContracted(id: string, contracted: boolean): Promise<void> {
    if (!(await this.store.find(id))) throw new KitError('unknown_merchant', `merchant "${id}" does not exist`);
    await this.store.setContracted(id, contracted);
    this.facts.forget(id);
  }

  async setDisabled(id: string, disabled: boolean): Promise<void> {
    if (!(await this.store.find(id))) throw new KitError('unknown_merchant', `merchant "${id}" does not exist`);
    await this.store.setDisabled(id, disabled);
    this.facts.forget(id);
  }
}
