/**
 * Mounted at /pay-notify: where the payment platforms send their notifications, one realm per
 * provider (`payments/providers/registry.ts`), at `/<realm>/{pay,refund}` or, for a platform that
 * sends both to one URL (Alipay), at `/<realm>`. The realm's provider reads the request and answers as
 * its platform expects (protocol v2: XML `SUCCESS`/`FAIL`; API v3: 204, or 4xx/5xx with
 * `{"code":"FAIL","message":…}`). Anything but an acknowledgement makes the platform retry; refused
 * notifications change nothing.
 */
import express, { Router, type Request, type Response } from 'express';
import type { RouteDeps } from './deps';
import { methodNotAllowed } from '../http/errors';
import type { NotificationAnswer } from '../payments/providers/provider';

export function payNotifyRoutes({ services }: RouteDeps): Router {
  const r = Router();
  r.use(express.raw({ type: () => true, limit: '64kb' }));
  const notifications = services.payments.notifications;

  const send = (res: Response, a: NotificationAnswer) => {
    res.status(a.status);
    if (a.body === undefined) return res.end();
    if (typeof a.body === 'string') return res.type(a.type ?? 'text/plain').send(a.body);
    return res.json(a.body);
  };

  const handler = (kind: 'pay' | 'refund') => async (req: Request, res: Response) => {
    const provider = notifications.provider(String(req.params.realm));
    if (!provider) return send(res, notifications.unknownRealm());
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    try {
      const result = await notifications.take(provider, kind, { header: (n) => req.get(n), body });
      send(res, provider.notifications.answer(result.ack ? 'ack' : 'refused', result.msg));
    } catch (err) {
      // Our own fault (database down…): the platform repeats the notification later.
      res.locals.log?.error({ err }, 'notification processing failed');
      send(res, provider.notifications.answer('failed', 'temporarily unavailable'));
    }
  };

  r.post('/:realm/pay', handler('pay'));
  r.post('/:realm/refund', handler('refund'));
  // A platform with one notify URL for payments and refunds (Alipay's): its provider tells them apart.
  r.post('/:realm', handler('pay'));
  r.all(['/:realm/pay', '/:realm/refund', '/:realm'], methodNotAllowed(['POST']));
  return r;
}
