/**
 * The front-end routers (/pos, /mp) act as a merchant backend would: they call this service's own
 * public API over HTTP, signed with the secret of the app that owns the merchant. The secret stays
 * in this process; the browser never sees it, a signature or a channel key.
 */
import { KitClient } from '@kit/shared';
import type { AppService } from '../apps/app-service';

export class SelfClients {
  private readonly clients = new Map<string, { client: KitClient; secret: string }>();

  /** `self.url` is filled in once the server listens (routers are built before that). */
  constructor(
    private readonly apps: AppService,
    private readonly self: { url: string },
  ) {}

  /** A client signing as `appId`, talking to this service. */
  async forApp(appId: string): Promise<KitClient> {
    const secret = await this.apps.secretOf(appId);
    if (!secret) throw new Error(`app ${appId} is unknown or disabled`);
    const hit = this.clients.get(appId);
    if (hit && hit.secret === secret) return hit.client;
    const client = new KitClient({ baseUrl: this.self.url, appId, appSecret: secret });
    this.clients.set(appId, { client, secret });
    return client;
  }
}
