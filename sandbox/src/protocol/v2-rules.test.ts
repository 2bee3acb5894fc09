/** The sandbox's protocol v2 rules against the field's own code, wechatpay-axios-plugin's Hash, Transformer and Aes. */
import { createHash } from 'node:crypto';
import { Aes, Hash, Transformer } from 'wechatpay-axios-plugin';
import { readFlatXml, sealRefundInfo, v2Sign, v2Verifies, writeFlatXml } from './v2-rules';

const apiKey = '192006250b4c09247ec02edce69f6a2d';
const fields = { appid: 'wxd930ea5d5a258f4f', mch_id: '10000100', device_info: '1000', body: 'test', nonce_str: 'ibuaiVcKdpRxkhJA', empty: '' };

describe('protocol v2 signatures', () => {
  it.each(['MD5', 'HMAC-SHA256'] as const)('%s is what the plug-in computes, and verifies', (type) => {
    const sign = v2Sign(fields, apiKey, type);
    expect(sign).toBe(Hash.sign(type, fields, apiKey));
    expect(v2Verifies({ ...fields, sign }, apiKey, type)).toBe(true);
    expect(v2Verifies({ ...fields, sign: sign.toLowerCase() }, apiKey, type)).toBe(true);
    expect(v2Verifies({ ...fields, body: 'other', sign }, apiKey, type)).toBe(false);
    expect(v2Verifies({ ...fields, sign }, `${apiKey}x`, type)).toBe(false);
    expect(v2Verifies(fields, apiKey, type)).toBe(false);
  });

  it("matches the platform's published MD5 example", () => {
    // pay.weixin.qq.com's signature page: the example's stringSignTemp and its MD5.
    expect(v2Sign({ ...fields, empty: undefined }, apiKey, 'MD5')).toBe('9A0A8659F005D6984697E2CA0A9CF3B7');
  });
});

describe('flat XML', () => {
  it('writes what the plug-in reads, and reads what it writes', () => {
    const values = { return_code: 'SUCCESS', body: 'a <b> & "c" ]]> d', total_fee: '1' };
    expect(Transformer.toObject(writeFlatXml(values))).toEqual(values);
    // The plug-in writes `]]>` into one CDATA section unsplit (no longer XML), so its side goes without one.
    const plain = { ...values, body: 'a <b> & "c" d' };
    expect(readFlatXml(Transformer.toXml(plain))).toEqual(plain);
  });

  it('reads CDATA, entities, an empty field and a declaration', () => {
    expect(readFlatXml('<?xml version="1.0"?>\n<xml>\n <a><![CDATA[x]]>&amp;y</a><b/><c>&#x4e2d;</c>\n</xml>')).toEqual({ a: 'x&y', b: '', c: '中' });
  });

  it.each([
    ['a DOCTYPE', '<!DOCTYPE xml [<!ENTITY e "x">]><xml><a>&e;</a></xml>'],
    ['a nested element', '<xml><a><b>1</b></a></xml>'],
    ['a repeated field', '<xml><a>1</a><a>2</a></xml>'],
    ['text after the root', '<xml><a>1</a></xml>x'],
    ['no XML', 'a=1'],
  ])('refuses %s', (_, text) => expect(() => readFlatXml(text)).toThrow());
});

describe("a refund notification's req_info", () => {
  it("is AES-256-ECB under the MD5 of the API key, as the plug-in's AesEcb opens it", () => {
    const key = createHash('md5').update(apiKey).digest('hex');
    const xml = Aes.AesEcb.decrypt(sealRefundInfo({ out_refund_no: 'R1', refund_fee: 1 }, apiKey), key);
    expect(Transformer.toObject(xml)).toEqual({ out_refund_no: 'R1', refund_fee: '1' });
  });
});
