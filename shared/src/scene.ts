/**
 * The scene parser of specification 1.3. A mini-program code carries `scene`
 * (`sm.pay?prepayid=<id>` plus optional extra parameters, usually URL-encoded once);
 * a plain QR code delivers a whole URL with the same query. The id is the value after
 * `prepayid=` up to the next `&` or the end: no assumption about its length or prefix.
 */

const KEY = 'prepayid=';

/** Returns the prepay id, or null when the input holds none. */
export function parseScene(input: string | null | undefined): string | null {
  if (typeof input !== 'string' || input.length === 0) return null;
  const direct = extract(input);
  if (direct !== null) return direct;
  // A scene delivered URL-encoded (`sm.pay%3Fprepayid%3D…%26f%3D2`) is decoded exactly once.
  const decoded = safeDecode(input);
  return decoded === null || decoded === input ? null : extract(decoded);
}

function extract(text: string): string | null {
  let from = 0;
  for (;;) {
    const at = text.indexOf(KEY, from);
    if (at < 0) return null;
    const before = at === 0 ? '' : text[at - 1];
    // Only a whole parameter name counts: `xprepayid=` is another parameter.
    if (at === 0 || before === '?' || before === '&' || before === '#') {
      const start = at + KEY.length;
      const end = text.indexOf('&', start);
      const raw = text.slice(start, end < 0 ? undefined : end).split('#')[0];
      const id = raw.includes('%') ? safeDecode(raw) : raw;
      return id ? id : null;
    }
    from = at + KEY.length;
  }
}

function safeDecode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** Builds the scene for an order: `sm.pay?prepayid=<id>` plus extra parameters. */
export function buildScene(prepayId: string, extra: Record<string, string> = {}): string {
  const tail = Object.entries(extra)
    .map(([k, v]) => `&${k}=${v}`)
    .join('');
  return `sm.pay?prepayid=${prepayId}${tail}`;
}

/** The mini-program code's `scene` may hold at most 32 visible characters. */
export const MAX_SCENE_LENGTH = 32;

/** The characters the platform accepts in a `scene`: digits, letters and ``!#$&'()*+,/:;=?@-._~``. */
const SCENE_CHARACTERS = /^[0-9A-Za-z!#$&'()*+,/:;=?@\-._~]*$/;

/**
 * Why the platform would refuse to draw a code for this scene, or null when it would not: more than
 * `MAX_SCENE_LENGTH` characters, or a character outside its set. The prepay id's length may change
 * (specification 2.1): `sm.pay?prepayid=` takes 16 characters, so an id of more than 16 no longer fits.
 */
export function sceneProblem(scene: string): string | null {
  if (!SCENE_CHARACTERS.test(scene)) {
    const bad = [...scene].find((c) => !SCENE_CHARACTERS.test(c));
    return `the scene "${scene}" holds "${bad}", which the platform does not accept (digits, letters and !#$&'()*+,/:;=?@-._~ only)`;
  }
  if (scene.length > MAX_SCENE_LENGTH) {
    return `the scene "${scene}" has ${scene.length} characters; the platform accepts at most ${MAX_SCENE_LENGTH}`;
  }
  return null;
}
