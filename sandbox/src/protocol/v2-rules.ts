/**
 * The social platform's protocol v2 rules as its documentation publishes them, written for the
 * sandbox's side of the wire apart from the kit's own code (`v2-rules.test.ts` checks them against
 * the field's wechatpay-axios-plugin):
 * - the signature: the fields with a non-empty value but `sign`, sorted by name (ASCII), written
 *   `k=v` and joined with `&`, then `&key=<API key>`; MD5 of that, or HMAC-SHA256 of it keyed with
 *   the API key; upper-case hex;
 * - the body: a flat `<xml>` of text fields (values in CDATA);
 * - a refund notification's `req_info`: its fields as such XML (root `root`), AES-256-ECB with
 *   PKCS#7 padding under the lower-case hex MD5 of the API key, base64.
 */
import { createCipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type Fields = Record<string, string>;

/** The platform's protocol v2 calls the sandbox answers, by name, at their published paths (`/secapi/…` ask for the merchant's client certificate). */
export const V2_PATHS = {
  unifiedOrder: '/pay/unifiedorder',
  orderQuery: '/pay/orderquery',
  closeOrder: '/pay/closeorder',
  refund: '/secapi/pay/refund',
  refundQuery: '/pay/refundquery',
  microPay: '/pay/micropay',
  reverse: '/secapi/pay/reverse',
  psAddReceiver: '/pay/profitsharingaddreceiver',
  psRemoveReceiver: '/pay/profitsharingremovereceiver',
  psSplit: '/secapi/pay/multiprofitsharing',
  psSplitAndFinish: '/secapi/pay/profitsharing',
  psQuery: '/pay/profitsharingquery',
  psFinish: '/secapi/pay/profitsharingfinish',
  psAmount: '/pay/profitsharingorderamountquery',
} as const;
export type V2Call = keyof typeof V2_PATHS;
/** The daily bill's download. */
export const V2_BILL_PATH = '/pay/downloadbill';
export type SignType = 'MD5' | 'HMAC-SHA256';

export const isSignType = (v: unknown): v is SignType => v === 'MD5' || v === 'HMAC-SHA256';

export function signedString(fields: Record<string, string | number | null | undefined>, apiKey: string): string {
  const pairs = Object.keys(fields)
    .filter((k) => k !== 'sign' && fields[k] != null && String(fields[k]) !== '')
    .sort()
    .map((k) => `${k}=${fields[k]}`);
  return [...pairs, `key=${apiKey}`].join('&');
}

export function v2Sign(fields: Record<string, string | number | null | undefined>, apiKey: string, type: SignType): string {
  const text = signedString(fields, apiKey);
  const hash = type === 'MD5' ? createHash('md5') : createHmac('sha256', apiKey);
  return hash.update(text, 'utf8').digest('hex').toUpperCase();
}

/** Whether `fields.sign` is the signature of the other fields (the case of its hex does not matter). */
export function v2Verifies(fields: Fields, apiKey: string, type: SignType): boolean {
  const given = Buffer.from(String(fields.sign ?? '').toUpperCase());
  const expected = Buffer.from(v2Sign(fields, apiKey, type));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export class FlatXmlError extends Error {}

const XML_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function unescapeText(text: string): string {
  return text.replace(/&(?:#x([0-9a-fA-F]+)|#(\d+)|(lt|gt|amp|quot|apos));/g, (_, hex: string, dec: string, name: string) =>
    name ? XML_ENTITIES[name] : String.fromCodePoint(parseInt(hex ?? dec, hex ? 16 : 10)),
  );
}

/**
 * Reads `<xml><name>text</name>…</xml>`: one root of text fields (character data or CDATA). A
 * DOCTYPE, a nested element, a repeated field or anything after the root is refused.
 */
export function readFlatXml(input: string | Buffer): Fields {
  const text = (typeof input === 'string' ? input : input.toString('utf8')).replace(/^\uFEFF/, '');
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new FlatXmlError('a DOCTYPE is not accepted');
  const body = text.replace(/^\s*(<\?xml[^>]*\?>)?\s*/, '').trimEnd();
  const root = /^<([A-Za-z_][\w.-]*)\s*>([\s\S]*)<\/\1\s*>$/.exec(body);
  if (!root) throw new FlatXmlError('not one root element');
  const fields: Fields = {};
  const field = /\s*<([A-Za-z_][\w.-]*)\s*(?:\/>|>((?:<!\[CDATA\[[\s\S]*?\]\]>|[^<])*)<\/\1\s*>)\s*/y;
  let at = 0;
  while (at < root[2].length) {
    field.lastIndex = at;
    const m = field.exec(root[2]);
    if (!m) throw new FlatXmlError(`not a text field at ${at}`);
    if (Object.prototype.hasOwnProperty.call(fields, m[1]) || m[1] === '__proto__') throw new FlatXmlError(`field ${m[1]} repeated`);
    fields[m[1]] = (m[2] ?? '')
      .split(/(<!\[CDATA\[[\s\S]*?\]\]>)/)
      .map((part) => (part.startsWith('<![CDATA[') ? part.slice(9, -3) : unescapeText(part)))
      .join('');
    at = field.lastIndex;
  }
  return fields;
}

/** Writes a flat XML document, every value in CDATA (a `]]>` inside is split across two sections). */
export function writeFlatXml(fields: Record<string, string | number | null | undefined>, root = 'xml'): string {
  const items = Object.entries(fields)
    .filter(([, v]) => v != null)
    .map(([k, v]) => {
      if (!/^[A-Za-z_]\w*$/.test(k)) throw new FlatXmlError(`not a field name: ${k}`);
      return `<${k}><![CDATA[${String(v).split(']]>').join(']]]]><![CDATA[>')}]]></${k}>`;
    });
  return `<${root}>${items.join('')}</${root}>`;
}

/** A refund notification's `req_info`. */
export function sealRefundInfo(fields: Record<string, string | number>, apiKey: string): string {
  const key = Buffer.from(createHash('md5').update(apiKey, 'utf8').digest('hex'), 'utf8');
  const cipher = createCipheriv('aes-256-ecb', key, null);
  return Buffer.concat([cipher.update(writeFlatXml(fields, 'root'), 'utf8'), cipher.final()]).toString('base64');
}
