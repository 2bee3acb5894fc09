/**
 * The front-end routers (/pos, /mp) act as a merchant backend would: they call this service's own
 * public API over HTTP, signed with the secret of the app that owns the merchant. The secret stays
 * in this process; the browser never sees it, a signature or a channel key.
 */
import { KitClient } from '@kit/shared';
import type { AppService } from '../apps/app-service';
import type { SelfUrl } from '../self-url';

export class SelfClients {
  private readonly clients = new Map<string, { client: KitClient; secret: string }>();

  constructor(
    private readonly apps: AppService,
    /** Read at the first call of each app (after the server listens; see `self-url.ts`). */
    private readonly selfUrl: SelfUrl,
  ) {}

  /** A client signing as `appId`, talking to this service. */
  async forApp(appId: string): Promise<KitClient> {
    const secret = await this.apps.secretOf(appId);
    if (!secret) throw new Error(`app ${appId} is unknown or disabled`);
    const hit = this.clients.get(appId);
    if (hit && hit.secret === secret) return hit.client;
    const client = new KitClient({ baseUrl: this.selfUrl() ?? '', appId, appSecret: secret });
    this.clients.set(appId, { client, secret });
    return client;
  }
}
