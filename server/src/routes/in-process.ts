/**
 * The signed API called from inside the service. The front-end routers act for the app that owns
 * a merchant, as a merchant's backend would, through the same route definitions a signed request
 * over HTTP reaches: the same schemas validate the input and the same handler runs, with the same
 * caller app (`runRoute`), so the services' ownership checks and every other rule apply to the
 * routers as to anyone. Without a signature, a socket or this service's own URL.
 */
import type { PayAnswer, PayRequest, WayName } from '@kit/shared';
import { paymentRoutes } from './payments';
import { KitError } from '@kit/shared';
import type { ZodTypeAny } from 'zod';
import { toKitError } from '../http/errors';
import type { WaitSignal } from '../orders/order-events';
import { runRoute, type Route, type RouteInput, type RouteServices } from './route';

/** Who a router acts as: the app that owns the merchant (as stored), and for a held call the signal of its own caller. */
export interface ActingApp {
  appId: string;
  signal?: WaitSignal;
}

export class InProcessApi {
  constructor(private readonly deps: RouteServices) {}

  /**
   * Calls a signed route as `as.appId`. Answers what the route answers over HTTP; a failure is the
   * `KitError` the HTTP answer would carry (a database away is `unavailable`), and a fault of the
   * service's own stays as it is, for the router's error handler to log and answer `internal`.
   */
  async call<P extends ZodTypeAny | undefined, Q extends ZodTypeAny | undefined, B extends ZodTypeAny | undefined, R>(
    route: Route<P, Q, B, ZodTypeAny, R>,
    as: ActingApp,
    input: RouteInput<P, Q, B>,
  ): Promise<Awaited<R>> {
    if (route.auth !== 'signed') throw new Error(`${route.method} ${route.path} is not a signed route`);
    try {
      // What a valid signature shows over HTTP: the app exists and is enabled.
      if ((await this.deps.services.apps.secretOf(as.appId)) === null) throw new KitError('unknown_app', `app "${as.appId}" is unknown or disabled`);
      const caller = { appId: as.appId, hold: () => as.signal };
      return await runRoute(route, this.deps, caller, input.params ?? {}, input.query ?? {}, input.body);
    } catch (e) {
      const kit = toKitError(e);
      throw kit.error === 'internal' ? e : kit;
    }
  }

  /** `POST /submerchant-pay/pay` for one way of the service's wallets (design 7.2): its answer typed by the way. */
  async pay<N extends WayName>(as: ActingApp, req: PayRequest & { way: N }): Promise<PayAnswer<N>> {
    return (await this.call(paymentRoutes(this.deps.services.wallets).pay, as, { body: req })) as PayAnswer<N>;
  }
}
