/**
 * `npm run docs`: writes the generated parts of docs/configuration.md and docs/api.md (below their
 * marker line). `npm run docs -- --check` writes nothing and exits 1 when a file is out of date.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expectedText, GENERATED_DOCS, readDoc, ROOT } from './docs/generated';

const check = process.argv.includes('--check');
let stale = 0;
for (const doc of GENERATED_DOCS) {
  const current = readDoc(doc);
  const expected = expectedText(doc, current);
  if (current === expected) {
    process.stderr.write(`${doc.file}: up to date\n`);
  } else if (check) {
    stale++;
    process.stderr.write(`${doc.file}: out of date (run npm run docs)\n`);
  } else {
    fs.writeFileSync(path.join(ROOT, doc.file), expected);
    process.stderr.write(`${doc.file}: written\n`);
  }
}
process.exitCode = stale ? 1 : 0;
