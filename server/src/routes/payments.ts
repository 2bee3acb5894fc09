/**
 * Under /submerchant-pay beside the prepay routes. 4.3 scan-code, 4.4 mini-program and 4.5 app
 * payment arguments (signed: the order's creating app or the owner of its sub-merchant or parent),
 * 4.6 refund (signed, plus the login token of the sub-merchant or its parent).
 */
import { refundQuerySchema, refundRequestSchema, socialPayAppRequestSchema, socialPayNativeRequestSchema, socialPayRequestSchema } from '@kit/shared';
import { validate } from '../http/validate';
import { signer } from '../http/signature';
import type { RouteDeps } from './deps';
import type { ApiRoutes } from '../http/api-routes';

export function paymentRoutes(r: ApiRoutes, { services, signed }: RouteDeps): void {
  r.post('/socialPayNative', signed, async (req, res) => {
    const body = validate(socialPayNativeRequestSchema, req.body);
    res.json(await services.payments.args.native(signer(res), body.prepayId));
  });

  r.post('/socialPay', signed, async (req, res) => {
    const body = validate(socialPayRequestSchema, req.body);
    res.json(await services.payments.args.miniProgram(signer(res), body.prepayId, body.openId));
  });

  r.post('/socialPayApp', signed, async (req, res) => {
    const body = validate(socialPayAppRequestSchema, req.body);
    res.json(await services.payments.args.app(signer(res), body.prepayId, body.enableProfitSharing ?? false));
  });

  r.post('/refund', signed, async (req, res) => {
    const { loginToken } = validate(refundQuerySchema, req.query, 'query');
    const body = validate(refundRequestSchema, req.body);
    res.json(await services.payments.refunds.request(signer(res), loginToken, body.id));
  });
}
