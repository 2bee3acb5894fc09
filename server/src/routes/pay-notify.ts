/**
 * Mounted at /pay-notify: where the payment channels send their notifications. Protocol v2: XML
 * in, XML out, `SUCCESS` tells the channel to stop repeating. API v3: signed JSON in, 204 to
 * acknowledge, 4xx/5xx with `{"code":"FAIL","message":…}` to refuse. Anything but an
 * acknowledgement makes the channel retry; refused notifications change nothing.
 */
import express, { Router, type Request, type Response } from 'express';
import { toXml } from '../payments/protocol/xml';
import { isRealm } from '../payments/channels';
import type { RouteDeps } from './deps';
import { methodNotAllowed } from '../http/errors';
import { signedHeaders } from '../payments/channels/social-native/v3/verify';
import { refusal } from '../payments/channels/social-native/v3/notification';

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
    const realm = req.params.realm;
    if (!isRealm(realm)) return answer(res, false, 'unknown channel');
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (services.payments.notifications.isV3(realm)) {
      try {
        const result = await services.payments.notifications.v3(
          kind,
          realm,
          signedHeaders((n) => req.get(n)),
          raw,
        );
        if (result.ack) res.status(204).end();
        else res.status(400).json(refusal(result.msg));
      } catch (err) {
        res.locals.log?.error({ err }, 'notification processing failed');
        res.status(500).json(refusal('temporarily unavailable'));
      }
      return;
    }
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
