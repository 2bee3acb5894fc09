/**
 * The trade bill over API v3 (docs/reconciliation.md): `GET /v3/bill/tradebill` (a verified answer
 * with the file's SHA1 and where to get it), then a signed download of `download_url`, whose answer
 * is not signed: the hash, over the uncompressed file, is what vouches for it. No statement
 * (`NO_STATEMENT_EXIST`) is an answer: a day without trade.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { KitError } from '@kit/shared';
import type { BillText } from '../protocol-v2/types';
import type { V3Client } from './client';

/** The platform's codes for a day without a bill, and for one still being made. */
const NO_STATEMENT = new Set(['NO_STATEMENT_EXIST']);
const NOT_READY = new Set(['STATEMENT_CREATING', 'BILL_CREATING']);
const ANSWERS: ReadonlySet<string> = new Set([...NO_STATEMENT, ...NOT_READY]);

const tradeBillAnswer = z.object({
  hash_type: z.literal('SHA1'),
  hash_value: z.string().regex(/^[0-9A-Fa-f]{40}$/),
  download_url: z.string().url(),
});

export function billsV3(client: () => V3Client): { download(date: string): Promise<BillText> } {
  return {
    async download(date: string): Promise<BillText> {
      const query = new URLSearchParams({ bill_date: date, bill_type: 'ALL', tar_type: 'GZIP' });
      const a = await client().call({ method: 'GET', path: `/v3/bill/tradebill?${query}`, repeatable: true, answers: ANSWERS });
      const rid = a.requestId ? ` (Request-ID ${a.requestId})` : '';
      if (a.status !== 200) {
        const code = typeof a.body?.code === 'string' ? a.body.code : '';
        if (NO_STATEMENT.has(code)) return { kind: 'none' };
        if (NOT_READY.has(code)) return { kind: 'not_ready', why: code };
        throw new KitError('channel_error', `the platform refused the trade bill: ${code || `HTTP ${a.status}`} ${String(a.body?.message ?? '')}${rid}`.trim());
      }
      const bill = tradeBillAnswer.safeParse(a.body);
      if (!bill.success) throw new KitError('channel_error', `the platform's trade bill answer is not the documented JSON${rid}`);
      const file = await client().download(bill.data.download_url);
      const plain = file[0] === 0x1f && file[1] === 0x8b ? gunzip(file) : file;
      const actual = createHash('sha1').update(plain).digest();
      const expected = Buffer.from(bill.data.hash_value, 'hex');
      if (!timingSafeEqual(actual, expected)) {
        throw new KitError(
          'channel_error',
          `the downloaded bill of ${date} does not match its hash (SHA1 ${actual.toString('hex')}, expected ${bill.data.hash_value.toLowerCase()})`,
        );
      }
      return { kind: 'bill', text: plain.toString('utf8') };
    },
  };
}

function gunzip(file: Buffer): Buffer {
  try {
    return gunzipSync(file);
  } catch (e) {
    // A file cut short in transfer does not decompress.
    throw new KitError('channel_error', `the downloaded bill does not decompress: ${(e as Error).message}`);
  }
}
