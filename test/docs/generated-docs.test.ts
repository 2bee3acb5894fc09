/** The generated parts of docs/api.md and docs/configuration.md are what `npm run docs` writes from their sources today. */
import { expectedText, GENERATED_DOCS, readDoc } from '../../scripts/docs/generated';

describe.each(GENERATED_DOCS.map((d) => [d.file, d] as const))('%s', (file, doc) => {
  it('matches its source (run `npm run docs` after changing it)', () => {
    const current = readDoc(doc);
    const expected = expectedText(doc, current);
    if (current !== expected) {
      const a = current.split('\n');
      const b = expected.split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      throw new Error(`${file} is out of date from line ${line + 1}:\n  file:     ${a[line]}\n  expected: ${b[line]}\nRun npm run docs.`);
    }
  });
});
