/**
 * The sandbox's API v3 trade bill (docs/sandbox.md): `GET /v3/bill/tradebill` answers the SHA1 of
 * the uncompressed file and where to download it; the download (`/v3/billdownload/file?token=…`, a
 * signed request too) answers the file itself, GZIP when asked, not signed: the hash vouches for it.
 * The file is the one protocol v2 serves (sandbox-bills.ts), with the same faults. The token names
 * the day and compression only; the bill is made again at download, from the same records.
 */
import { gzipSync } from 'node:zlib';
import { isDay } from '../protocol/china-time';
import type { SandboxBills } from '../sandbox-bills';
import type { SandboxFaults } from '../sandbox-faults';
import { V3Fail } from './sandbox-v3-http';
import type { V3Result } from './sandbox-v3-payments';

const REALM = 'social';

interface Token {
  d: string;
  t: 'GZIP' | '';
}

export class SandboxV3Bills {
  constructor(
    private readonly bills: SandboxBills,
    private readonly faults: SandboxFaults,
  ) {}

  /** `downloadBase`: the URL the download path is appended to (`…/sandbox/v3`). */
  async tradeBill(mchid: string, q: Record<string, unknown>, downloadBase: string): Promise<V3Result> {
    const date = typeof q.bill_date === 'string' ? q.bill_date : '';
    if (!isDay(date)) throw new V3Fail(400, 'PARAM_ERROR', 'bill_date must be yyyy-MM-DD');
    if (q.bill_type !== undefined && q.bill_type !== 'ALL') throw new V3Fail(400, 'PARAM_ERROR', 'the sandbox keeps bill_type ALL only');
    if (q.tar_type !== undefined && q.tar_type !== 'GZIP') throw new V3Fail(400, 'PARAM_ERROR', 'tar_type is GZIP or absent');
    if (this.faults.current.bills === 'creating') throw new V3Fail(400, 'STATEMENT_CREATING', 'the bill is being made');
    const file = await this.bills.file(REALM, mchid, date);
    if (!file) throw new V3Fail(400, 'NO_STATEMENT_EXIST', 'no bill for this day');
    const token: Token = { d: date, t: q.tar_type === 'GZIP' ? 'GZIP' : '' };
    return {
      status: 200,
      body: {
        hash_type: 'SHA1',
        hash_value: file.sha1,
        download_url: `${downloadBase}/billdownload/file?token=${Buffer.from(JSON.stringify(token)).toString('base64url')}`,
      },
    };
  }

  /** The file of a token handed out by `tradeBill`. */
  async download(mchid: string, tokenText: unknown): Promise<{ contentType: string; body: Buffer }> {
    let token: Token;
    try {
      token = JSON.parse(Buffer.from(String(tokenText ?? ''), 'base64url').toString('utf8')) as Token;
    } catch {
      throw new V3Fail(400, 'PARAM_ERROR', 'token is not one this platform handed out');
    }
    if (!token || typeof token.d !== 'string' || !isDay(token.d)) throw new V3Fail(400, 'PARAM_ERROR', 'token is not one this platform handed out');
    const file = await this.bills.file(REALM, mchid, token.d);
    if (!file) throw new V3Fail(400, 'NO_STATEMENT_EXIST', 'no bill for this day');
    return token.t === 'GZIP'
      ? { contentType: 'application/octet-stream', body: gzipSync(file.text) }
      : { contentType: 'text/plain; charset=utf-8', body: Buffer.from(file.text) };
  }
}
