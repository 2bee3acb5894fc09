/**
 * The protocol's XML bodies: a flat `<xml>` element of text fields. Read by a small parser of that
 * shape alone (one root, text or CDATA children, the five predefined entities and character
 * references); anything else (nested elements, a repeated field, markup out of place) is refused.
 * Documents with a DOCTYPE are refused outright, so no entity declaration is ever expanded.
 * A general XML parser costs several times more per notification body (docs/performance.md, "What the speed tricks buy").
 */
export type Fields = Record<string, string>;

export class XmlError extends Error {}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Replaces the predefined entities and character references; an unknown one stays as written. */
function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, ref: string) => {
    if (ref[0] !== '#') return ENTITIES[ref] ?? whole;
    const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    if (!(code > 0 && code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) throw new XmlError(`bad character reference ${whole}`);
    return String.fromCodePoint(code);
  });
}

const isNameChar = (c: number) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46 || c === 58 || c > 127;
const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** A cursor over one document. */
class Reader {
  i = 0;
  constructor(readonly s: string) {}

  fail(why: string): never {
    throw new XmlError(`not well-formed XML: ${why} at ${this.i}`);
  }

  skipSpace(): void {
    while (this.i < this.s.length && isSpace(this.s.charCodeAt(this.i))) this.i++;
  }

  /** Skips what may stand between elements outside the fields: spaces, comments, processing instructions. */
  skipMisc(): void {
    for (;;) {
      this.skipSpace();
      if (this.s.startsWith('<!--', this.i)) this.skipPast('-->');
      else if (this.s.startsWith('<?', this.i)) this.skipPast('?>');
      else return;
    }
  }

  skipPast(end: string): void {
    const at = this.s.indexOf(end, this.i);
    if (at < 0) this.fail(`missing "${end}"`);
    this.i = at + end.length;
  }

  /** Reads `<name …>` (attributes skipped); true when it closed itself (`/>`). */
  openTag(): { name: string; empty: boolean } {
    if (this.s.charCodeAt(this.i) !== 60) this.fail('expected an element');
    const start = ++this.i;
    while (this.i < this.s.length && isNameChar(this.s.charCodeAt(this.i))) this.i++;
    if (this.i === start) this.fail('expected an element name');
    const name = this.s.slice(start, this.i);
    const close = this.s.indexOf('>', this.i);
    if (close < 0) this.fail('unclosed tag');
    const rest = this.s.slice(this.i, close);
    if (rest.length && !isSpace(rest.charCodeAt(0)) && rest !== '/') this.fail('bad tag');
    this.i = close + 1;
    return { name, empty: rest.endsWith('/') };
  }

  closeTag(name: string): void {
    if (!this.s.startsWith('</', this.i) || !this.s.startsWith(name, this.i + 2)) this.fail(`expected </${name}>`);
    this.i += 2 + name.length;
    this.skipSpace();
    if (this.s.charCodeAt(this.i) !== 62) this.fail(`expected </${name}>`);
    this.i++;
  }

  /** The text of an element up to its end tag: character data and CDATA sections; an element inside is refused. */
  text(name: string): string {
    let out = '';
    for (;;) {
      const lt = this.s.indexOf('<', this.i);
      if (lt < 0) this.fail(`missing </${name}>`);
      out += decodeEntities(this.s.slice(this.i, lt));
      this.i = lt;
      if (this.s.startsWith('<![CDATA[', lt)) {
        const end = this.s.indexOf(']]>', lt + 9);
        if (end < 0) this.fail('unclosed CDATA section');
        out += this.s.slice(lt + 9, end);
        this.i = end + 3;
      } else if (this.s.startsWith('<!--', lt)) this.skipPast('-->');
      else if (this.s.charCodeAt(lt + 1) === 47) {
        this.closeTag(name);
        return out;
      } else throw new XmlError(`field "${name}" must be text`);
    }
  }
}

/** Parses `<xml><k>v</k>…</xml>` (or any single root) into string fields; nested elements are refused. */
export function parseXml(text: string | Buffer): Fields {
  const s = typeof text === 'string' ? text : text.toString('utf8');
  if (/<!DOCTYPE|<!ENTITY/i.test(s)) throw new XmlError('DOCTYPE and ENTITY declarations are not accepted');
  const r = new Reader(s.charCodeAt(0) === 0xfeff ? s.slice(1) : s);
  const doc = r.s;
  r.skipMisc();
  const root = r.openTag();
  const out: Fields = {};
  if (!root.empty) {
    for (;;) {
      const lt = doc.indexOf('<', r.i);
      if (lt < 0) r.fail(`missing </${root.name}>`);
      if (doc.slice(r.i, lt).trim() !== '') throw new XmlError('the root element must hold fields');
      r.i = lt;
      if (doc.startsWith('<!--', lt)) {
        r.skipPast('-->');
        continue;
      }
      if (doc.charCodeAt(lt + 1) === 47) {
        r.closeTag(root.name);
        break;
      }
      const field = r.openTag();
      if (field.name === '__proto__' || Object.prototype.hasOwnProperty.call(out, field.name)) throw new XmlError(`field "${field.name}" must be text`);
      out[field.name] = field.empty ? '' : r.text(field.name);
    }
  }
  r.skipMisc();
  if (r.i < doc.length) r.fail('content after the root element');
  return out;
}

/** Builds `<xml>` with every value in CDATA (a `]]>` inside a value is split safely). */
export function toXml(fields: Record<string, string | number | undefined | null>, root = 'xml'): string {
  let out = `<${root}>`;
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined || v === null) continue;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new XmlError(`bad field name "${k}"`);
    out += `<${k}><![CDATA[${String(v).replace(/]]>/g, ']]]]><![CDATA[>')}]]></${k}>`;
  }
  return `${out}</${root}>`;
}
