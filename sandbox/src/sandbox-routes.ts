/**
 * Mounted at /sandbox when SANDBOX_ENABLED. Protocol endpoints (XML) for the social platform at the
 * root and for the card acquirer under /card; the payer API (JSON, open to any origin); the faults
 * (docs/sandbox.md); the cashier page and the sandbox's own page for a person (`/sandbox/`).
 */
import express, { Router, type Request, type Response } from 'express';
import { z, ZodError } from 'zod';
import { describeZodError } from '@kit/shared';
import { V2_BILL_PATH, V2_PATHS, type V2Call } from './protocol/v2-rules';
import { CODE_WALLETS, PARTS, sandboxRealms } from './stand-ins';
import type { StandInPart } from './stand-ins/part';
import type { RequestRules } from '@kit/server/plugins/dev-plugin';
import { methodNotAllowed, sendPage } from '@kit/server/plugins/kit';
import { cashierPage, safeReturnUrl } from './cashier-page';
import { sandboxPage } from './sandbox-page';
import { SandboxError } from './sandbox-payer';
import { readJsonObject } from './json-body';
import type { Sandbox } from './sandbox';
import { sandboxV3Routes } from './v3/sandbox-v3-routes';
import { CODE_BEHAVIOURS, issuePaymentCode } from './sandbox-codes';
import { code128Svg } from './barcode';

/** `rules`: the service's rules for bodies and URLs (the plug-in contract's); `home`: the service's front page, linked from the sandbox page. */
/** The payer's payment codes (7.4): one issued, and the payer's confirmation. */
const CODE_PATHS = ['/payment-code', '/payment-code/confirm'];
const CODE_WALLET_IDS = CODE_WALLETS.map((w) => w.wallet) as [string, ...string[]];
const paymentCodeRequest = z
  .object({ wallet: z.enum(CODE_WALLET_IDS).default(CODE_WALLET_IDS[0]), behaviour: z.enum(CODE_BEHAVIOURS).default('pay') })
  .strict();
/** The payer routes of the stand-ins' parts (`stand-ins/part.ts`). */
const PART_PAYER_PATHS = PARTS.flatMap((p) => p.payerPaths);
const paymentCodeConfirm = z.object({ code: z.string().regex(/^\d{16,24}$/, 'must be a payment code: 16 to 24 digits') }).strict();

export function sandboxRoutes(sandbox: Sandbox, rules: RequestRules, opts: { home: string } = { home: '/' }): Router {
  const r = Router();
  const raw = express.raw({ type: () => true, limit: '64kb' });

  const platforms = sandboxRealms();
  for (const { realm, pathPrefix } of platforms.filter((p) => p.protocolV2)) {
    for (const [op, path] of Object.entries(V2_PATHS) as Array<[V2Call, string]>) {
      r.post(`${pathPrefix}${path}`, raw, async (req, res) => {
        const xml = await sandbox.platform.protocol(realm, op, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
        // A call the faults say is lost is never answered: the caller's own time limit ends it.
        if (xml === null) return;
        res.type('application/xml').send(xml);
      });
    }
  }

  // The platforms with routes of their own (Alipay's gateway), while their stand-ins play (`stand-ins/part.ts`).
  const partOf = (p: StandInPart) => sandbox.parts[p.name];
  for (const p of PARTS) p.platformRoutes?.(r, partOf(p), raw);

  // The social platform's API v3, beside protocol v2 (the kit appends `/v3/…` to its gateway).
  r.use('/v3', sandboxV3Routes(sandbox.v3, rules));

  // The mini-program's server API (sandbox-mp.ts): errors as `{errcode, errmsg}` with HTTP 200, as the
  // platform answers them; a body the service's rules refuse is its "data format error".
  const platformJson = (req: Request): Record<string, unknown> | null => {
    const read = readJsonObject(rules, req.body);
    return 'object' in read ? read.object : null;
  };
  const dataFormatError = { errcode: 47001, errmsg: 'data format error' };
  r.post('/cgi-bin/stable_token', raw, async (req, res) => {
    const body = platformJson(req);
    res.json(body ? await sandbox.miniProgram.stableToken(body) : dataFormatError);
  });
  r.post('/wxa/getwxacodeunlimit', raw, async (req, res) => {
    const body = platformJson(req);
    if (!body) return void res.json(dataFormatError);
    const calledAt = { origin: `${req.protocol}://${req.get('host')}`, basePath: req.baseUrl.replace(/\/sandbox$/, '') };
    const answer = await sandbox.miniProgram.unlimitedCode(req.query.access_token, body, calledAt);
    if ('png' in answer) res.type('image/png').send(answer.png);
    else res.json(answer);
  });

  // Trade bills of the channels that publish them (docs/reconciliation.md).
  for (const m of platforms) {
    if (!m.publishesBills) continue;
    r.post(`${m.pathPrefix}${V2_BILL_PATH}`, raw, async (req, res) => {
      const answer = await sandbox.bills.downloadV2(m.realm, sandbox.platform.keyOf(m.realm), Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      res.type(answer.contentType).send(answer.body);
    });
  }

  // The sandbox's own routes below (payer API, receiver, cashier, page) refuse a NUL in the URL, by
  // the kit's own rule: PostgreSQL text cannot hold one, and a lookup with it failed as a 500. (The
  // platform's protocol routes above check the caller's signature before any lookup.)
  r.use((req, res, next) => {
    const nul = rules.refuseNulInUrl(req.originalUrl);
    if (!nul) return next();
    res.status(400).json({ status: 'fail', msg: nul.message });
  });

  // The payer side is called from pages on other origins (the mini-program's H5 build).
  const cors = (req: Request, res: Response, next: () => void) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', 'content-type');
    res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
    if (req.method === 'OPTIONS') return void res.status(204).end();
    next();
  };
  // The kit's rules for every JSON body: nesting (a body 5,000 deep overflowed the stack and answered
  // 500), UTF-8, and no NUL (PostgreSQL text cannot hold one) or lone surrogate (not text at all).
  const json = (req: Request): Record<string, unknown> => {
    if (!Buffer.isBuffer(req.body) || req.body.length === 0) return {};
    const read = readJsonObject(rules, req.body);
    if ('refused' in read) throw new SandboxError(400, read.refused);
    return read.object;
  };
  const payer = (fn: (req: Request) => Promise<object>) => async (req: Request, res: Response) => {
    try {
      res.json(await fn(req));
    } catch (e) {
      if (e instanceof ZodError) return void res.status(400).json({ status: 'fail', msg: describeZodError(e) });
      if (!(e instanceof SandboxError)) throw e;
      res.status(e.httpStatus).json({ status: 'fail', msg: e.message });
    }
  };

  r.options(['/pay', ...PART_PAYER_PATHS, ...CODE_PATHS, '/login', '/renotify', '/sns/jscode2session', '/faults'], cors);
  // The payers of the platforms with routes of their own (Alipay's: pay what the kit gave, log in, the cashier page, a merchant's revoke).
  for (const p of PARTS) p.payerRoutes(r, partOf(p), { raw, cors, json, payer });
  r.post(
    '/pay',
    cors,
    raw,
    payer(async (req) => ({ status: 'success', transactionId: (await sandbox.payer.pay(json(req))).transactionId })),
  );
  // The payer's payment code (7.4): a code of a wallet that goes the way its behaviour says, and the payer's confirmation on the phone.
  r.post(
    '/payment-code',
    cors,
    raw,
    payer(async (req) => {
      const body = paymentCodeRequest.parse(json(req));
      const wallet = CODE_WALLETS.find((w) => w.wallet === body.wallet)!;
      if (wallet.part && !partOf(wallet.part)) throw new SandboxError(404, wallet.part.notPlayed);
      return { status: 'success', code: issuePaymentCode(wallet.prefix, body.behaviour), wallet: body.wallet, behaviour: body.behaviour };
    }),
  );
  // The code drawn as the wallet draws it: a Code 128 barcode a scanner reads off the screen.
  r.get('/payment-code.svg', (req, res) => {
    const code = typeof req.query.code === 'string' ? req.query.code : '';
    if (!/^(\d\d){8,12}$/.test(code)) return void res.status(400).json({ status: 'fail', msg: 'code: 16 to 24 digits, an even number' });
    res.type('image/svg+xml').setHeader('cache-control', 'no-store');
    res.send(code128Svg(code));
  });
  r.post(
    '/payment-code/confirm',
    cors,
    raw,
    payer(async (req) => {
      const { code } = paymentCodeConfirm.parse(json(req));
      const confirmed =
        (await sandbox.codes.confirmCode(code)) ||
        PARTS.some((p) => {
          const part = partOf(p);
          return part !== undefined && (p.confirmCode?.(part, code) ?? false);
        });
      if (!confirmed) throw new SandboxError(409, 'no payment waits for the payer to confirm under this code');
      return { status: 'success' };
    }),
  );
  r.post(
    '/login',
    cors,
    raw,
    payer(async (req) => sandbox.payer.login(json(req).user)),
  );
  r.post(
    '/renotify',
    cors,
    raw,
    payer(async (req) => {
      const { prepayId } = json(req);
      if (typeof prepayId !== 'string') throw new SandboxError(400, 'prepayId (the channel prepay id) is required');
      await sandbox.payer.renotify(prepayId);
      return { status: 'success' };
    }),
  );
  r.get(
    '/sns/jscode2session',
    cors,
    payer(async (req) => sandbox.payer.jscode2session(req.query as Record<string, unknown>)),
  );
  r.get(
    '/faults',
    cors,
    payer(async () => ({ status: 'success', faults: sandbox.faults.current })),
  );
  r.post(
    '/faults',
    cors,
    raw,
    payer(async (req) => ({ status: 'success', faults: sandbox.faults.set(json(req)) })),
  );

  // The development receiver: what a merchant endpoint answers, and what it got (newest first).
  r.post('/receiver', raw, async (req, res) => {
    await sandbox.receiver.receive(req.originalUrl, Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
    res.type('text/plain').send('OK');
  });
  r.get('/receiver', (_req, res) => {
    res.setHeader('cache-control', 'no-store');
    res.json({ status: 'success', received: sandbox.receiver.list() });
  });

  r.get('/cashier', async (req, res) => {
    const pkg = typeof req.query.package === 'string' ? req.query.package : '';
    const ret = safeReturnUrl(typeof req.query.return === 'string' ? req.query.return : undefined);
    const order = await sandbox.payer.cashierOrder(pkg);
    sendPage(res, cashierPage(req, order, ret, sandbox.clock.now()), order ? 200 : 404);
  });
  r.get(
    '/',
    sandboxPage(
      () => sandbox.faults.current,
      opts.home,
      CODE_WALLETS.filter((w) => !w.part || partOf(w.part)).map((w) => w.wallet),
    ),
  );

  // Known paths asked with another method: 405 with `Allow`.
  const protocolPaths = ['', '/card'].flatMap((prefix) => Object.values(V2_PATHS).map((p) => prefix + p));
  r.all(protocolPaths, methodNotAllowed(['POST']));
  r.all(['/pay', ...PART_PAYER_PATHS, ...CODE_PATHS, '/login', '/renotify', '/cgi-bin/stable_token', '/wxa/getwxacodeunlimit'], methodNotAllowed(['POST']));
  r.all(['/', '/sns/jscode2session', '/cashier', '/payment-code.svg'], methodNotAllowed(['GET']));
  r.all(['/faults', '/receiver'], methodNotAllowed(['GET', 'POST']));
  return r;
}
