/**
 * The languages of the two front ends and the rules that pick one. Each front end keeps its own
 * message catalogue; what they share is here: which languages exist, how a device language or a
 * `?lang=` value maps to one of them, how `{name}` placeholders are filled, and the completeness
 * check their tests run on the catalogues. Browser-safe (no Node imports, no zod).
 */

export const LANGS = ['zh-CN', 'en'] as const;
export type Lang = (typeof LANGS)[number];

/**
 * The language of a device or browser: Chinese for any `zh*` tag (`zh`, `zh-CN`, `zh_TW`,
 * `zh-Hans-CN`), English for everything else. The first non-empty tag decides (it is the one the
 * person chose first).
 */
export function deviceLang(tags: ReadonlyArray<string | null | undefined>): Lang {
  const first = tags.find((t): t is string => typeof t === 'string' && t.trim() !== '');
  return first !== undefined && /^zh(?:$|[-_])/i.test(first.trim()) ? 'zh-CN' : 'en';
}

/** An explicit choice (`?lang=zh-CN|en`, or a saved switch); anything else is no choice. */
export function explicitLang(value: string | null | undefined): Lang | null {
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase().replace('_', '-');
  if (v === 'zh-cn' || v === 'zh') return 'zh-CN';
  if (v === 'en' || v === 'en-us' || v === 'en-gb') return 'en';
  return null;
}

export type MessageParams = Record<string, string | number>;

/** Fills `{name}` placeholders; a placeholder without a value stays visible, so a test can catch it. */
export function interpolate(template: string, params?: MessageParams): string {
  if (!params) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

const placeholders = (text: string) =>
  [...text.matchAll(/\{(\w+)\}/g)]
    .map((m) => m[1])
    .sort()
    .join(',');

/**
 * What is wrong with a set of catalogues (one per language): keys missing in one language, empty
 * texts, and texts whose placeholders differ between languages. Empty when complete.
 */
export function catalogueProblems(catalogues: Record<Lang, Record<string, string>>): string[] {
  const problems: string[] = [];
  const keys = new Set(LANGS.flatMap((l) => Object.keys(catalogues[l])));
  for (const key of [...keys].sort()) {
    const texts = LANGS.map((l) => [l, catalogues[l][key]] as const);
    for (const [lang, text] of texts) {
      if (text === undefined) problems.push(`${lang}: missing "${key}"`);
      else if (typeof text !== 'string' || text.trim() === '') problems.push(`${lang}: empty "${key}"`);
    }
    const present = texts.filter(([, t]) => typeof t === 'string');
    const shapes = new Set(present.map(([, t]) => placeholders(t)));
    if (shapes.size > 1) problems.push(`placeholders of "${key}" differ: ${present.map(([l, t]) => `${l} {${placeholders(t)}}`).join(' vs ')}`);
  }
  return problems;
}
