/**
 * Mounted at /pay-notify: where the payment channels send their notifications (protocol XML in,
 * protocol XML out). `SUCCESS` tells the channel to stop repeating; anything else makes it retry.
 * Refused notifications change nothing.
 */
import express, { Router, type Request, type Response } from 'express';
import { toXml } from '../payments/protocol/xml';
import type { Realm } from '../payments/channels';
import type { RouteDeps } from './deps';
import { methodNotAllowed } from '../http/errors';

const REALMS: readonly Realm[] = ['social', 'card'];

export function payNotifyRoutes({ services }: RouteDeps): Router {
  const r = Router();
  r.use(express.raw({ type: () => true, limit: '64kb' }));

  const answer = (res: Response, ack: boolean, msg: string) => {
    res
      .status(ack ? 200 : 400)
      .type('application/xml')
      .send(toXml({ return_code: ack ? 'SUCCESS' : 'FAIL', return_msg: ack ? 'OK' : msg }));
  };

  const handler = (kind: 'pay' | 'refund') => async (req: Request, res: Response) => {
    const realm = req.params.realm as Realm;
    if (!REALMS.includes(realm)) return answer(res, false, 'unknown channel');
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    try {
      const result = kind === 'pay' ? await services.payments.notifications.payment(realm, raw) : await services.payments.notifications.refund(realm, raw);
      answer(res, result.ack, result.msg);
    } catch (err) {
      // Our own fault (database down…): the channel repeats the notification later.
      res.locals.log?.error({ err }, 'notification processing failed');
      res
        .status(500)
        .type('application/xml')
        .send(toXml({ return_code: 'FAIL', return_msg: 'temporarily unavailable' }));
    }
  };

  r.post('/:realm/pay', handler('pay'));
  r.post('/:realm/refund', handler('refund'));
  r.all(['/:realm/pay', '/:realm/refund'], methodNotAllowed(['POST']));
  return r;
}
