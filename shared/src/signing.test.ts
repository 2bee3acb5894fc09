import { SIGNING_VECTORS } from './signing-vectors';
import { canonicalQuery, encodeQuery, parseQueryString, rfc3986, sign, signRequest, verify, type QueryPairs } from './signing';

describe('the published signing vectors', () => {
  it.each(SIGNING_VECTORS.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    expect(canonicalQuery(v.query)).toBe(v.canonicalQuery);
    expect(sign({ method: v.method, path: v.path, query: v.query, body: v.body }, v.appSecret)).toBe(v.signature);
  });
});

describe('canonical query', () => {
  it('encodes per RFC 3986 with upper-case hex, keeping only unreserved characters', () => {
    expect(rfc3986("a b+c/d~e_f.g-h!*'()中")).toBe('a%20b%2Bc%2Fd~e_f.g-h%21%2A%27%28%29%E4%B8%AD');
  });
  it('sorts by encoded key then encoded value and leaves out _s', () => {
    expect(
      canonicalQuery([
        ['b', '2'],
        ['a', 'z'],
        ['a', 'y'],
        ['_s', 'x'],
      ]),
    ).toBe('a=y&a=z&b=2');
  });
  it('keeps empty values', () => expect(canonicalQuery([['k', '']])).toBe('k='));
});

const creds = { appId: 'app_demo', appSecret: 's3cr3t-app-secret' };
const NOW = 1_700_000_000_000;

function signed(method = 'POST', path = '/submerchant-pay/', body = '{"a":1}', extra: Array<[string, string]> = []) {
  const query = signRequest({ method, path, query: extra, body }, creds, NOW);
  return { method, path, query, body };
}

const secretFor = (appId: string) => (appId === creds.appId ? creds.appSecret : null);

describe('verify', () => {
  it('accepts a correct signature', () => {
    expect(verify(signed(), secretFor, { now: NOW })).toEqual({ ok: true, appId: 'app_demo', t: NOW });
  });

  it('accepts up to 300 s either side and refuses beyond', () => {
    expect(verify(signed(), secretFor, { now: NOW + 300_000 }).ok).toBe(true);
    expect(verify(signed(), secretFor, { now: NOW - 300_000 }).ok).toBe(true);
    expect(verify(signed(), secretFor, { now: NOW + 300_001 })).toMatchObject({ ok: false, reason: 'timestamp_out_of_window' });
    expect(verify(signed(), secretFor, { now: NOW - 300_001 })).toMatchObject({ ok: false, reason: 'timestamp_out_of_window' });
  });

  const tamper: Array<[string, (r: ReturnType<typeof signed>) => ReturnType<typeof signed>]> = [
    ['another body', (r) => ({ ...r, body: '{"a":2}' })],
    ['the body re-serialised with different spacing', (r) => ({ ...r, body: '{ "a": 1 }' })],
    ['another method', (r) => ({ ...r, method: 'PUT' })],
    ['another path', (r) => ({ ...r, path: '/submerchant-pay' })],
    ['an added query field', (r) => ({ ...r, query: [...r.query, ['x', '1']] })],
    ['a changed query field', (r) => ({ ...r, query: r.query.map(([k, v]) => [k, k === 'note' ? 'other' : v]) as QueryPairs as typeof r.query })],
    ['a changed _t', (r) => ({ ...r, query: r.query.map(([k, v]) => [k, k === '_t' ? String(NOW + 1) : v]) as typeof r.query })],
    ['another app id', (r) => ({ ...r, query: r.query.map(([k, v]) => [k, k === '_appid' ? 'app_other' : v]) as typeof r.query })],
    ['a signature in upper case', (r) => ({ ...r, query: r.query.map(([k, v]) => [k, k === '_s' ? v.toUpperCase() : v]) as typeof r.query })],
  ];
  it.each(tamper)('refuses %s', (_what, change) => {
    const result = verify(change(signed('POST', '/submerchant-pay/', '{"a":1}', [['note', 'n']])), secretFor, { now: NOW });
    expect(result.ok).toBe(false);
  });

  it('refuses a signature made with another secret', () => {
    const query = signRequest({ method: 'GET', path: '/x' }, { appId: 'app_demo', appSecret: 'wrong' }, NOW);
    expect(verify({ method: 'GET', path: '/x', query }, secretFor, { now: NOW })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('refuses an unknown app the same way as a wrong signature', () => {
    const query = signRequest({ method: 'GET', path: '/x' }, { appId: 'nobody', appSecret: 'x' }, NOW);
    expect(verify({ method: 'GET', path: '/x', query }, secretFor, { now: NOW })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it.each([
    ['_appid', 'signature_missing'],
    ['_t', 'signature_missing'],
    ['_s', 'signature_missing'],
  ])('says which field is missing when %s is absent', (field, reason) => {
    const r = signed();
    const result = verify({ ...r, query: r.query.filter(([k]) => k !== field) }, secretFor, { now: NOW });
    expect(result).toMatchObject({ ok: false, reason });
    expect(!result.ok && result.detail).toContain(field);
  });

  it.each([
    ['_t', '1700000000', 'timestamp_invalid'],
    ['_t', 'abc', 'timestamp_invalid'],
    ['_s', 'xyz', 'signature_malformed'],
    ['_s', '0'.repeat(63), 'signature_malformed'],
  ])('refuses a malformed %s=%j', (field, value, reason) => {
    const r = signed();
    const query = r.query.map(([k, v]) => [k, k === field ? value : v] as [string, string]);
    expect(verify({ ...r, query }, secretFor, { now: NOW })).toMatchObject({ ok: false, reason });
  });

  it('refuses duplicated signature fields', () => {
    const r = signed();
    expect(verify({ ...r, query: [...r.query, ['_appid', 'app_demo']] }, secretFor, { now: NOW })).toMatchObject({ reason: 'signature_malformed' });
  });
});

describe('query strings on the wire', () => {
  it('round-trips through encodeQuery and parseQueryString', () => {
    const pairs: Array<[string, string]> = [
      ['userId', 'alice bob/中'],
      ['a', '+&=?'],
    ];
    expect(parseQueryString(encodeQuery(pairs))).toEqual(pairs);
  });
  it('reads + as a space, like the server does', () => {
    expect(parseQueryString('userId=alice+bob')).toEqual([['userId', 'alice bob']]);
  });
  it('throws on malformed percent-encoding', () => expect(() => parseQueryString('a=%E0%A4%A')).toThrow(URIError));
});
