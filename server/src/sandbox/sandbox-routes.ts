/**
 * Mounted at /sandbox when SANDBOX_ENABLED. Protocol endpoints (XML) for the social platform at the
 * root and for the card acquirer under /card; the payer API (JSON, open to any origin); the cashier.
 */
import express, { Router, type Request, type Response } from 'express';
import { PROTOCOL_PATHS, type ProtocolOp } from '../payments/protocol/client';
import { cashierPage, safeReturnUrl } from './cashier-page';
import { SandboxError, type SandboxRealm, type SandboxService } from './sandbox-service';

export function sandboxRoutes(sandbox: SandboxService): Router {
  const r = Router();
  const raw = express.raw({ type: () => true, limit: '64kb' });

  for (const [realm, prefix] of [['social', ''], ['card', '/card']] as Array<[SandboxRealm, string]>) {
    for (const [op, path] of Object.entries(PROTOCOL_PATHS) as Array<[ProtocolOp, string]>) {
      r.post(`${prefix}${path}`, raw, async (req, res) => {
        const xml = await sandbox.protocol(realm, op, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
        res.type('application/xml').send(xml);
      });
    }
  }

  // The payer side is called from pages on other origins (the mini-program's H5 build).
  const cors = (req: Request, res: Response, next: () => void) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', 'content-type');
    res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
    if (req.method === 'OPTIONS') return void res.status(204).end();
    next();
  };
  const json = (req: Request): Record<string, unknown> => {
    const buf = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (buf.length === 0) return {};
    try {
      const v = JSON.parse(buf.toString('utf8'));
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // fall through
    }
    throw new SandboxError(400, 'the body must be a JSON object');
  };
  const payer = (fn: (req: Request) => Promise<object>) => async (req: Request, res: Response) => {
    try {
      res.json(await fn(req));
    } catch (e) {
      if (!(e instanceof SandboxError)) throw e;
      res.status(e.httpStatus).json({ status: 'fail', msg: e.message });
    }
  };

  r.options(['/pay', '/login', '/renotify', '/sns/jscode2session'], cors);
  r.post('/pay', cors, raw, payer(async (req) => ({ status: 'success', transactionId: (await sandbox.pay(json(req))).transactionId })));
  r.post('/login', cors, raw, payer(async (req) => sandbox.login(json(req).user)));
  r.post('/renotify', cors, raw, payer(async (req) => {
    const { prepayId } = json(req);
    if (typeof prepayId !== 'string') throw new SandboxError(400, 'prepayId (the channel prepay id) is required');
    await sandbox.renotify(prepayId);
    return { status: 'success' };
  }));
  r.get('/sns/jscode2session', cors, payer(async (req) => sandbox.jscode2session(req.query as Record<string, unknown>)));

  r.get('/cashier', async (req, res) => {
    const pkg = typeof req.query.package === 'string' ? req.query.package : '';
    const ret = safeReturnUrl(typeof req.query.return === 'string' ? req.query.return : undefined);
    const order = await sandbox.cashierOrder(pkg);
    res
      .status(order ? 200 : 404)
      .setHeader('content-security-policy', "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; base-uri 'none'")
      .type('html')
      .send(cashierPage(order, ret));
  });

  return r;
}
