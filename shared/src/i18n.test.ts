import { catalogueProblems, deviceLang, explicitLang, interpolate } from './i18n';

describe('choosing the language', () => {
  it('follows the device: any zh* tag is Chinese, everything else English', () => {
    for (const tag of ['zh', 'zh-CN', 'zh_CN', 'zh-TW', 'zh-Hans-CN', 'ZH-cn']) expect(deviceLang([tag])).toBe('zh-CN');
    for (const tag of ['en', 'en-US', 'fr-FR', 'ja', 'zhx']) expect(deviceLang([tag])).toBe('en');
    expect(deviceLang([])).toBe('en');
    expect(deviceLang([undefined, '', 'zh-CN'])).toBe('zh-CN');
    expect(deviceLang(['en-US', 'zh-CN'])).toBe('en');
  });

  it('takes an explicit zh-CN or en, and nothing else', () => {
    expect(explicitLang('zh-CN')).toBe('zh-CN');
    expect(explicitLang('zh')).toBe('zh-CN');
    expect(explicitLang('zh_cn')).toBe('zh-CN');
    expect(explicitLang('en')).toBe('en');
    expect(explicitLang('fr')).toBeNull();
    expect(explicitLang('')).toBeNull();
    expect(explicitLang(null)).toBeNull();
  });
});

describe('messages', () => {
  it('fills placeholders and leaves unknown ones visible', () => {
    expect(interpolate('Pay {amount}', { amount: '¥1.00' })).toBe('Pay ¥1.00');
    expect(interpolate('{a} and {b}', { a: 1 })).toBe('1 and {b}');
    expect(interpolate('plain')).toBe('plain');
  });

  it('finds missing keys, empty texts and placeholders that differ', () => {
    expect(catalogueProblems({ en: { a: 'A', b: 'Pay {x}' }, 'zh-CN': { a: '甲', b: '支付 {x}' } })).toEqual([]);
    expect(catalogueProblems({ en: { a: 'A', b: 'B {x}' }, 'zh-CN': { b: '乙', c: ' ' } })).toEqual([
      'zh-CN: missing "a"',
      'placeholders of "b" differ: zh-CN {} vs en {x}',
      'zh-CN: empty "c"',
      'en: missing "c"',
    ]);
  });
});
