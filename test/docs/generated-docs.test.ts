/**
 * The generated parts of docs/api.md and docs/configuration.md are what `npm run docs` writes from their sources today,
 * including the KitClient methods by section (read from the client's source, so the table cannot drift from it).
 */
import { KitClient } from '@kit/shared';
import { expectedText, GENERATED_DOCS, readDoc } from '../../scripts/docs/generated';
import { readClientMethods, renderClientMethods } from '../../scripts/docs/client-doc';
import { ROUTE_DOCS } from '../../server/src/openapi/document';

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

describe('the KitClient table of docs/api.md', () => {
  const methods = readClientMethods();

  it('lists methods that exist on the client, each with the section of the endpoint it calls', () => {
    for (const m of methods) expect(typeof (KitClient.prototype as unknown as Record<string, unknown>)[m.name]).toBe('function');
    expect(methods.find((m) => m.name === 'socialPayNative')).toMatchObject({ section: '4.3', endpoint: 'POST /submerchant-pay/socialPayNative' });
    expect(methods.find((m) => m.name === 'waitForPayment')).toMatchObject({ section: '4.2' });
  });

  it('covers every specification section the service implements', () => {
    const sections = new Set(ROUTE_DOCS.flatMap((r) => (r.section ? [r.section] : [])));
    expect([...sections].filter((s) => !methods.some((m) => m.section === s))).toEqual([]);
  });

  it('is in docs/api.md', () => {
    expect(readDoc(GENERATED_DOCS.find((d) => d.file === 'docs/api.md')!)).toContain(renderClientMethods(methods));
  });
});
