import { XMLParser } from 'fast-xml-parser';
import { parseXml, toXml, XmlError } from './xml';

// The general parser the protocol bodies were read with before: on flat documents both must agree.
const general = new XMLParser({
  ignoreAttributes: true,
  ignoreDeclaration: true,
  parseTagValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: false,
});
const viaGeneral = (s: string) => {
  const doc = general.parse(s, true) as Record<string, Record<string, string> | ''>;
  const root = Object.values(doc)[0];
  return root === '' ? {} : root;
};

describe('parseXml', () => {
  const flat = [
    toXml({ return_code: 'SUCCESS', appid: 'wx1', total_fee: 100, body: 'a <b> & "c" ]]> d' }),
    '<?xml version="1.0" encoding="UTF-8"?>\n<xml><return_code>SUCCESS</return_code><msg>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;</msg><empty></empty><self/></xml>\n',
    '<xml><a attr="1">x<![CDATA[<y>]]>z</a><b>  spaced  </b></xml>',
    '<xml><!-- a comment --><a>1</a></xml><!-- trailing -->',
    '<root><a>中文</a></root>',
    '<xml></xml>',
  ];

  it.each(flat)('reads flat documents as the general parser does: %s', (doc) => {
    expect(parseXml(doc)).toEqual(viaGeneral(doc));
  });

  it('reads a Buffer and a byte order mark', () => {
    expect(parseXml(Buffer.from('\ufeff<xml><a>1</a></xml>'))).toEqual({ a: '1' });
    expect(parseXml('<xml/>')).toEqual({});
  });

  it('reads indented documents and character references (where the general parser kept a "#text" field and the references)', () => {
    expect(parseXml('<xml>\n  <a>&#65;&#x42;</a>\n  <b> 1 </b>\n</xml>')).toEqual({ a: 'AB', b: ' 1 ' });
  });

  it('leaves an unknown entity as written', () => {
    expect(parseXml('<xml><a>&nbsp;x</a></xml>')).toEqual({ a: '&nbsp;x' });
  });

  it.each([
    ['not xml at all <'],
    ['<xml><a>1</a>'],
    ['<xml><a>1</b></xml>'],
    ['<xml><a><b>1</b></a></xml>'],
    ['<xml><a>1</a><a>2</a></xml>'],
    ['<xml>text<a>1</a></xml>'],
    ['<xml><a>1</a></xml><xml></xml>'],
    ['<xml><a><![CDATA[1</a></xml>'],
    ['<xml><__proto__>1</__proto__></xml>'],
    ['<xml><a>&#0;</a></xml>'],
    ['<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><xml><a>&a;</a></xml>'],
  ])('refuses %s', (doc) => {
    expect(() => parseXml(doc)).toThrow(XmlError);
  });
});
