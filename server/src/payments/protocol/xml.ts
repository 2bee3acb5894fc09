/**
 * The protocol's XML bodies: a flat `<xml>` element of text fields. Parsed with fast-xml-parser;
 * documents with a DOCTYPE are refused outright (no entity tricks reach the parser).
 */
import { XMLParser } from 'fast-xml-parser';

export type Fields = Record<string, string>;

export class XmlError extends Error {}

const parser = new XMLParser({
  ignoreAttributes: true,
  ignoreDeclaration: true,
  parseTagValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: false,
});

/** Parses `<xml><k>v</k>…</xml>` (or any single root) into string fields; nested elements are refused. */
export function parseXml(text: string | Buffer): Fields {
  const s = typeof text === 'string' ? text : text.toString('utf8');
  if (/<!DOCTYPE|<!ENTITY/i.test(s)) throw new XmlError('DOCTYPE and ENTITY declarations are not accepted');
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(s, true) as Record<string, unknown>;
  } catch (e) {
    throw new XmlError(`not well-formed XML: ${(e as Error).message}`);
  }
  const roots = Object.keys(doc);
  if (roots.length !== 1) throw new XmlError('expected one root element');
  const root = doc[roots[0]];
  if (root === '' || root === undefined || root === null) return {};
  if (typeof root !== 'object' || Array.isArray(root)) throw new XmlError('the root element must hold fields');
  const out: Fields = {};
  for (const [k, v] of Object.entries(root as Record<string, unknown>)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else if (v === '' || v === null) out[k] = '';
    else throw new XmlError(`field "${k}" must be text`);
  }
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
