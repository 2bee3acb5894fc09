/**
 * `GET /sandbox/alipay/downloadBillFile.resource?…&fileId=…`: the archive of a bill link the Alipay
 * stand-in handed out (`sandbox-alipay-bills.ts`), while it has not expired (30 s); after that, or
 * for a link it never handed out, 404 and a line saying why.
 */
import type { Request, Response } from 'express';
import type { SandboxAlipay } from './sandbox-alipay';

export function alipayBillDownload(alipay: SandboxAlipay): (req: Request, res: Response) => void {
  return (req, res) => {
    const zip = typeof req.query.fileId === 'string' ? alipay.bills.file(req.query.fileId) : null;
    if (!zip) return void res.status(404).type('text/plain').send('no such bill file, or its link has expired (links work for 30 seconds)');
    res.type('application/zip').send(zip);
  };
}

/** The stand-in's own URL as a request to it reached it: bill links point there. */
export const alipayBase = (req: Request): string => `${req.protocol}://${req.get('host')}${req.baseUrl}/alipay`;
