/** Under /merchant. 4.16 login (unsigned, password over a secure connection), 4.17 create (signed), 4.7 payment parameters (signed, owner only). */
import { KitError, PAY_VERSION, createMerchantRequestSchema, loginRequestSchema, setPaymentParamsRequestSchema } from '@kit/shared';
import { validate } from '../http/validate';
import { signer } from '../http/signature';
import { isSecure } from '../http/secure-connection';
import type { RouteDeps } from './deps';
import type { ApiRoutes } from '../http/api-routes';

export function merchantRoutes(r: ApiRoutes, { services, signed, config }: RouteDeps): void {
  r.post('/login', async (req, res) => {
    if (!isSecure(req, config.ALLOW_INSECURE_LOGIN_ON_LOOPBACK)) {
      throw new KitError('secure_connection_required', 'log in over HTTPS (passwords never travel in plain text)');
    }
    const body = validate(loginRequestSchema, req.body);
    res.json(await services.merchants.login(body.userId, body.pw, { address: req.ip }));
  });

  r.post('/', signed, async (req, res) => {
    const body = validate(createMerchantRequestSchema, req.body);
    const { id } = await services.merchants.create(signer(res), body);
    res.json({ version: PAY_VERSION, status: 'success', data: { id } });
  });

  r.put('/paymentParams', signed, async (req, res) => {
    const body = validate(setPaymentParamsRequestSchema, req.body);
    await services.merchants.setPaymentParams(signer(res), body.id, body.paymentChannel, body.parameters);
    res.json({ version: PAY_VERSION, status: 'success' });
  });
}
