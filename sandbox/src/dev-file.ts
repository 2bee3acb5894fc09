/** Development key material the sandbox generates into DATA_DIR, once, readable by the owner only. */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The file's content, created with `make()` when absent. Written aside and linked into place, so a
 * reader never sees half a file and concurrent first starts (tests' workers, a fleet's instances)
 * agree on the first one linked.
 */
export function devFileOnce(dir: string, name: string, make: () => string): string {
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) {
    const tmp = path.join(dir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}`);
    fs.writeFileSync(tmp, make(), { mode: 0o600, flag: 'wx' });
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      fs.unlinkSync(tmp);
    }
  }
  return fs.readFileSync(file, 'utf8');
}
