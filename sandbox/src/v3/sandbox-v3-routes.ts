/**
 * The sandbox's API v3 paths, mounted at `/sandbox/v3` (the kit's gateway for the social realm is
 * `<service>/sandbox`, and it appends `/v3/…`). Each route checks the request's signature, calls the
 * v3 side and answers signed; refusals in the v3 shape `{code, message}`. A call a fault says is
 * lost is never answered.
 */
import express, { Router, type Request, type Response } from 'express';
import { certificateEntry, platformNonce } from '../protocol/v3-rules';
import type { RequestRules } from '@kit/server/plugins/dev-plugin';
import { methodNotAllowed } from '@kit/server/plugins/kit';
import { readJsonObject } from '../json-body';
import { checkAuthorization, requestId, sendSigned, V3Fail } from './sandbox-v3-http';
import type { V3Result } from './sandbox-v3-payments';
import type { SandboxV3 } from './sandbox-v3';
import { certificatesOf, signingOf, signingUnder } from './sandbox-v3-keys';

type Handler = (mchid: string, body: string, req: Request) => Promise<V3Result>;

/** `rules`: the service's rules for bodies (the plug-in contract's), which a JSON body must pass before any of the v3 side's. */
export function sandboxV3Routes(v3: SandboxV3, rules: RequestRules): Router {
  const r = Router();
  const ANSWER_CODES = new Set(['NO_STATEMENT_EXIST', 'STATEMENT_CREATING']);
  const raw = express.raw({ type: () => true, limit: '64kb' });
  const rotated = () => v3.faults.current.v3Certificates === 'rotated';
  // Who signs the answer to this request (a merchant mid-switch asks for the public key by naming its id).
  const signing = (req: Request) =>
    signingUnder(v3.keys, v3.faults.current, req.get('wechatpay-serial') === v3.keys.publicKeyId ? v3.keys.switching.answers : null);
  const text = (req: Request) => (Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
  const query = (req: Request) => req.query as Record<string, unknown>;
  const param = (req: Request, name: string) => String(req.params[name] ?? '');

  const refuse = (req: Request, res: Response, e: unknown) => {
    if (!(e instanceof V3Fail)) throw e;
    // A day without a bill is the platform's answer, not a fault: its request line is not logged as one.
    if (ANSWER_CODES.has(e.code)) res.locals.expectedAnswer = true;
    sendSigned(res, signing(req), e.status, { code: e.code, message: e.message }, v3.clock.now());
  };

  /** Verified, read by the service's body rules, handled, answered signed. */
  const signed = (handle: Handler) => async (req: Request, res: Response) => {
    try {
      const body = text(req);
      const mchid = checkAuthorization(req, body, v3.keys, v3.clock.now());
      if (body) {
        const read = readJsonObject(rules, req.body);
        if ('refused' in read) throw new V3Fail(400, 'PARAM_ERROR', read.refused);
      }
      const out = await handle(mchid, body, req);
      if (out === null) return;
      sendSigned(res, signing(req), out.status, out.body, v3.clock.now());
    } catch (e) {
      refuse(req, res, e);
    }
  };

  for (const t of ['native', 'jsapi', 'app'] as const) {
    r.post(
      `/pay/partner/transactions/${t}`,
      raw,
      signed((mchid, body) => v3.payments.place(t.toUpperCase() as 'NATIVE' | 'JSAPI' | 'APP', mchid, body)),
    );
  }
  r.post(
    '/pay/partner/transactions/codepay',
    raw,
    signed((mchid, body) => v3.payments.codePay(mchid, body)),
  );
  r.post(
    '/pay/partner/transactions/out-trade-no/:no/reverse',
    raw,
    signed((mchid, body, req) => v3.payments.reverse(mchid, param(req, 'no'), body)),
  );
  r.get(
    '/pay/partner/transactions/out-trade-no/:no',
    signed((mchid, _b, req) => v3.payments.query(mchid, param(req, 'no'), query(req))),
  );
  r.post(
    '/pay/partner/transactions/out-trade-no/:no/close',
    raw,
    signed((mchid, body, req) => v3.payments.close(mchid, param(req, 'no'), body)),
  );
  r.post(
    '/refund/domestic/refunds',
    raw,
    signed((mchid, body) => v3.payments.refund(mchid, body)),
  );
  r.get(
    '/refund/domestic/refunds/:no',
    signed((mchid, _b, req) => v3.payments.refundQuery(mchid, param(req, 'no'), query(req))),
  );

  r.post(
    '/profitsharing/receivers/add',
    raw,
    signed((mchid, body, req) => v3.sharing.addReceiver(mchid, body, req.get('wechatpay-serial'))),
  );
  r.post(
    '/profitsharing/receivers/delete',
    raw,
    signed((mchid, body) => v3.sharing.removeReceiver(mchid, body)),
  );
  r.post(
    '/profitsharing/orders',
    raw,
    signed((mchid, body) => v3.sharing.split(mchid, body)),
  );
  r.post(
    '/profitsharing/orders/unfreeze',
    raw,
    signed((mchid, body) => v3.sharing.unfreeze(mchid, body)),
  );
  r.get(
    '/profitsharing/orders/:no',
    signed((mchid, _b, req) => v3.sharing.query(mchid, param(req, 'no'), query(req))),
  );
  r.get(
    '/profitsharing/transactions/:id/amounts',
    signed((mchid, _b, req) => v3.sharing.amounts(mchid, param(req, 'id'))),
  );

  // The platform certificates (two during a rotation), encrypted under the APIv3 key; the answer is
  // signed by a key it carries, so it names a certificate's serial whatever the `v3Serial` fault says,
  // unless `v3CertificatesSigner: "requested"` signs it with the public key the request names.
  // A merchant who never had certificates (`v3Certificates: "none"`) gets the platform's 404.
  r.get('/certificates', async (req, res) => {
    try {
      checkAuthorization(req, '', v3.keys, v3.clock.now());
      const f = v3.faults.current;
      if (f.v3Certificates === 'none') throw new V3Fail(404, 'RESOURCE_NOT_EXISTS', '无可用的平台证书，请在商户平台-API安全申请使用微信支付公钥');
      const data = certificatesOf(v3.keys, rotated()).map((c) => certificateEntry(c.pem, v3.keys.apiV3Key, platformNonce(12)));
      const named = f.v3CertificatesSigner === 'requested' && req.get('wechatpay-serial') === v3.keys.publicKeyId;
      sendSigned(res, signingOf(v3.keys, named ? 'public-key' : 'certificate', rotated()), 200, { data }, v3.clock.now());
    } catch (e) {
      refuse(req, res, e);
    }
  });

  r.get(
    '/bill/tradebill',
    signed((mchid, _b, req) => v3.bills.tradeBill(mchid, query(req), `${req.protocol}://${req.get('host')}${req.baseUrl}`)),
  );
  // The file itself: the request is signed, the answer is not (its hash was in the signed answer).
  r.get('/billdownload/file', async (req, res) => {
    try {
      const mchid = checkAuthorization(req, '', v3.keys, v3.clock.now());
      const file = await v3.bills.download(mchid, req.query.token);
      res.set('request-id', requestId(res)).type(file.contentType).send(file.body);
    } catch (e) {
      refuse(req, res, e);
    }
  });

  r.all(
    [
      '/pay/partner/transactions/:t',
      '/pay/partner/transactions/out-trade-no/:no/close',
      '/pay/partner/transactions/out-trade-no/:no/reverse',
      '/profitsharing/receivers/:op',
      '/profitsharing/orders/unfreeze',
    ],
    methodNotAllowed(['POST']),
  );
  r.all('/refund/domestic/refunds', methodNotAllowed(['POST']));
  r.all(
    ['/pay/partner/transactions/out-trade-no/:no', '/refund/domestic/refunds/:no', '/certificates', '/bill/tradebill', '/billdownload/file'],
    methodNotAllowed(['GET']),
  );
  r.all('/profitsharing/orders', methodNotAllowed(['POST']));
  return r;
}
