/**
 * The display's one message catalogue is complete in both languages, says every service error a
 * cashier can meet in words, and is the only source of text on screen.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE, KitApiError, KitNetworkError } from '@kit/shared/errors';
import { catalogueProblems } from '@kit/shared/i18n';
import { MESSAGES } from './messages';
import { translator } from './i18n';
import { describeFailure } from './failure';

const en = translator('en');
const zh = translator('zh-CN');

/** Every error id the POS router can answer the display with, and the channel refusals behind a missing QR. */
const CASHIER_ERRORS = [
  'login_failed',
  'login_invalid',
  'secure_connection_required',
  'pos_not_sub_merchant',
  'invalid_amount',
  'not_found',
  'order_not_active',
  'order_not_paid',
  'order_already_refunded',
  'refund_in_progress',
  'channel_error',
  'channel_unavailable',
  'payment_params_missing',
  'merchant_disabled',
  'unknown_merchant',
  'point_type_not_found',
  'not_user_app',
  'uuid_spent',
  'pos_points_session_invalid',
  'pos_upstream_failed',
  'pos_upstream_unreachable',
  'shutting_down',
  'login_throttled',
  'unavailable',
];

describe('POS message catalogue', () => {
  it('has every key in both languages, no empty text and the same placeholders', () => {
    expect(catalogueProblems(MESSAGES)).toEqual([]);
  });

  it('has words for every error a cashier can meet, and only for real error ids', () => {
    for (const id of CASHIER_ERRORS) {
      expect(Object.keys(ERROR_CATALOGUE)).toContain(id);
      expect(Object.keys(MESSAGES.en)).toContain(`error.${id}`);
    }
    const keyed = Object.keys(MESSAGES.en).filter((k) => k.startsWith('error.') && !['error.network', 'error.generic'].includes(k));
    for (const k of keyed) expect(Object.keys(ERROR_CATALOGUE)).toContain(k.slice('error.'.length));
  });

  it('never shows a field path or a developer message', () => {
    const parent = new KitApiError(403, { status: 'fail', error: 'pos_not_sub_merchant', code: 'E0070', msg: 'body: userId: log in with a sub-merchant id' });
    expect(en(describeFailure(parent))).toMatch(/^This is a parent merchant id\./);
    expect(zh(describeFailure(parent))).toMatch(/^这是总商户号/);
    const odd = new KitApiError(400, { status: 'fail', error: 'invalid_request', code: 'E0001', msg: 'body: amount: Expected string' });
    expect(en(describeFailure(odd))).toBe('Something went wrong (code E0001). Please try again; if it keeps happening, tell the shop’s technical contact.');
    expect(zh(describeFailure(odd))).toContain('E0001');
    expect(en(describeFailure(new KitApiError(401, { status: 'fail', error: 'signature_mismatch' })))).toBe('Your login has expired. Please log in again.');
    expect(en(describeFailure(new KitApiError(401, { status: 'fail', error: 'login_failed' })))).toBe('Wrong merchant id or password.');
    expect(en(describeFailure(new KitNetworkError('fetch failed')))).toMatch(/^Network problem/);
    expect(zh(describeFailure(new KitNetworkError('fetch failed')))).toMatch(/^网络异常/);
    expect(en(describeFailure(new KitApiError(502, { status: 'fail' })))).toContain('code 502');
  });

  it('is the only source of text in the components (no words written into the JSX)', () => {
    const dir = path.join(__dirname, '../components');
    const offenders: string[] = [];
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.tsx') && !f.endsWith('.test.tsx'))) {
      const src = fs.readFileSync(path.join(dir, file), 'utf8');
      // Text between a tag's end and the next tag or expression, holding a letter.
      for (const m of src.matchAll(/(?<![=-])>([^<>{}();=?]*)</g)) {
        const text = m[1].trim();
        if (/[A-Za-z\u4e00-\u9fff]/.test(text)) offenders.push(`${file}: "${text}"`);
      }
      for (const m of src.matchAll(/\b(?:aria-label|alt|title|placeholder|label)="([^"]*)"/g)) offenders.push(`${file}: attribute "${m[1]}"`);
    }
    expect(offenders).toEqual([]);
  });
});
