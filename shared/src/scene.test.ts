import { buildScene, MAX_SCENE_LENGTH, parseScene, sceneProblem } from './scene';

describe('parseScene (specification 1.3)', () => {
  it.each([
    ['sm.pay?prepayid=abc123', 'abc123'],
    ['sm.pay?prepayid=abc123&f=2', 'abc123'],
    ['sm.pay?f=2&prepayid=abc123', 'abc123'],
    ['sm.pay?f=2&prepayid=abc123&x=y', 'abc123'],
    ['prepayid=Z', 'Z'],
    // Any length, any prefix: the parser assumes neither.
    ['sm.pay?prepayid=1', '1'],
    ['sm.pay?prepayid=PP0123456789012345678901234567890123456789', 'PP0123456789012345678901234567890123456789'],
    ['sm.pay?prepayid=wx_2024-abc.def&f=2', 'wx_2024-abc.def'],
    ['sm.pay?prepayid=OLDFORMAT00000000001&f=2&g=3', 'OLDFORMAT00000000001'],
  ])('finds the id in %j', (scene, id) => expect(parseScene(scene)).toBe(id));

  it.each([
    ['sm.pay%3Fprepayid%3Dabc123%26f%3D2', 'abc123'],
    ['sm.pay%3Fprepayid%3Dabc123', 'abc123'],
    ['sm.pay%3Ff%3D2%26prepayid%3DXYZ', 'XYZ'],
  ])('decodes a URL-encoded scene once: %j', (scene, id) => expect(parseScene(scene)).toBe(id));

  it('decodes only once: a doubly encoded id stays encoded once', () => {
    expect(parseScene('sm.pay%3Fprepayid%3Da%2525b')).toBe('a%b');
  });

  it.each([
    ['https://pay.example.com/mp/#/pages/pay/index?scene=sm.pay%3Fprepayid%3Dabc123%26f%3D2', 'abc123'],
    ['https://pay.example.com/q?prepayid=abc123&f=2', 'abc123'],
    ['https://pay.example.com/sm.pay?prepayid=abc123#frag', 'abc123'],
    ['http://127.0.0.1:8080/mp/#/pages/pay/index?scene=sm.pay%3Fprepayid%3DAbC9%26f%3D2', 'AbC9'],
  ])('accepts the whole URL a plain QR code delivers: %j', (url, id) => expect(parseScene(url)).toBe(id));

  it.each([[''], ['sm.pay'], ['sm.pay?prepayid='], ['sm.pay?prepayid=&f=2'], ['sm.pay?xprepayid=abc'], ['sm.pay?f=2'], ['%E0%A4%A']])(
    'finds nothing in %j',
    (scene) => expect(parseScene(scene)).toBeNull(),
  );

  it('ignores non-strings', () => {
    expect(parseScene(undefined)).toBeNull();
    expect(parseScene(null)).toBeNull();
  });

  it('skips a parameter that merely ends in prepayid', () => {
    expect(parseScene('sm.pay?myprepayid=no&prepayid=yes')).toBe('yes');
  });
});

describe('buildScene', () => {
  it('builds the scene the parser reads back', () => {
    const scene = buildScene('Ab3dE6gH9jK1', { f: '2' });
    expect(scene).toBe('sm.pay?prepayid=Ab3dE6gH9jK1&f=2');
    expect(parseScene(scene)).toBe('Ab3dE6gH9jK1');
  });
  it('a 12-character id with &f=2 fits the 32-character limit', () => {
    expect(buildScene('x'.repeat(12), { f: '2' }).length).toBeLessThanOrEqual(MAX_SCENE_LENGTH);
  });
});

describe("sceneProblem (the platform's rule for a mini-program code's scene)", () => {
  it('accepts a scene of up to 32 characters from the allowed set', () => {
    expect(sceneProblem(buildScene('Ab3dE6gH9jK1'))).toBeNull();
    expect(sceneProblem(buildScene('x'.repeat(16)))).toBeNull();
    expect(sceneProblem("sm.pay?prepayid=!#$&'()*+,/:;=@-")).toBeNull();
    expect(sceneProblem('a~b._-c')).toBeNull();
  });
  it('refuses 33 characters: an id longer than 16 no longer fits', () => {
    expect(sceneProblem(buildScene('x'.repeat(17)))).toMatch(/has 33 characters; the platform accepts at most 32/);
  });
  it('refuses characters outside the set, naming the first', () => {
    expect(sceneProblem('sm.pay?prepayid=a%20b')).toMatch(/holds "%"/);
    expect(sceneProblem('sm.pay?prepayid=a b')).toMatch(/holds " "/);
    expect(sceneProblem('sm.pay?prepayid=é')).toMatch(/holds "é"/);
  });
});
