/**
 * Who is behind a console request: a merchant logged in through 4.16 (the same login service and
 * protections as the POS), a parent with its sub-merchants or a sub-merchant alone, and the app
 * that owns it, as which the console acts on the public API.
 */
import { KitError } from '@kit/shared';
import type { ConsoleSession } from '@kit/shared/api/console';
import type { Services } from '../../services';

/** The merchant behind a request: who logged in, its owning app, its login token and what it sees. */
export interface ConsoleUser extends ConsoleSession {
  appId: string;
  loginToken: string;
}

export class ConsoleIdentity {
  constructor(private readonly services: Services) {}

  /** 4.16, through the same login service as the POS (and its protections); both levels may log in. */
  async login(userId: string, pw: string, client: { address?: string }): Promise<string> {
    return (await this.services.merchants.login(userId, pw, client)).loginToken;
  }

  async logout(token: string | undefined): Promise<void> {
    if (token) await this.services.merchants.revokeLogin(token);
  }

  /** Resolves the cookie's token; anything but a valid login is a 401. */
  async identify(token: string | undefined): Promise<ConsoleUser> {
    const who = await this.services.merchants.identify(token);
    const row = await this.services.merchants.find(who.merchantId);
    if (!row) throw new KitError('login_invalid');
    const children = who.kind === 'subMerchant' ? [] : await this.services.merchants.children(who.merchantId);
    return {
      merchantId: who.merchantId,
      displayName: who.displayName,
      parentMerchantId: who.parentMerchantId,
      merchants: [{ id: who.merchantId, displayName: who.displayName }, ...children.map((c) => ({ id: c.id, displayName: c.display_name }))],
      receiver: !!this.services.dev?.parts.receiver,
      appId: row.app_id,
      loginToken: token!,
    };
  }

  session(user: ConsoleUser): ConsoleSession {
    const { appId: _a, loginToken: _l, ...session } = user;
    return session;
  }
}
