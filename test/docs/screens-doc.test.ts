/** docs/screens.md stays true: every payer page state, the extraInfo fields and the screenshot folder it names exist. */
import fs from 'node:fs';
import path from 'node:path';
import { readOrderItems } from '@kit/shared/order-items';

const root = path.join(__dirname, '../..');
const doc = fs.readFileSync(path.join(root, 'docs/screens.md'), 'utf8');

describe('docs/screens.md', () => {
  it('describes every state of the payer page, and no other', () => {
    const flow = fs.readFileSync(path.join(root, 'miniprogram/src/pages/pay/pay-flow.ts'), 'utf8');
    const union = flow.slice(flow.indexOf('export type PayView'), flow.indexOf('export type LaunchOptions'));
    const kinds = [...union.matchAll(/kind: '(\w+)'/g)].map((m) => m[1]).sort();
    const section = doc.slice(doc.indexOf('## The payer page\n'), doc.indexOf('\n## ', doc.indexOf('## The payer page\n') + 1));
    const documented = [...section.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual(kinds);
  });

  it('shows an extraInfo example the page really understands', () => {
    const example = /```json\n([\s\S]*?)```/.exec(doc)![1];
    expect(readOrderItems(JSON.parse(example))).toEqual({
      items: [
        { name: 'Flat white', quantity: 2, amount: '36.00' },
        { name: 'Croissant', quantity: 3, amount: '25.50' },
      ],
      more: 0,
      note: 'Table 4',
    });
  });

  it('names the files it points to', () => {
    for (const file of [
      'miniprogram/src/i18n/messages.ts',
      'pos-display/src/i18n/messages.ts',
      'shared/src/money-format.ts',
      'shared/src/order-items.ts',
      'test/browser/screens-pos.test.ts',
      'test/browser/screens-payer.test.ts',
    ]) {
      expect(doc).toContain(file);
      expect(fs.existsSync(path.join(root, file))).toBe(true);
    }
    expect(doc).toContain('test/browser/screenshots/');
    expect(fs.readFileSync(path.join(root, 'test/browser/look.ts'), 'utf8')).toContain("path.resolve(__dirname, 'screenshots')");
  });
});
