/** docs/chain.md states the donation amount rule the service applies (section 8: at least two decimals). */
import fs from 'node:fs';
import path from 'node:path';
import { donationAmountSchema, rmbAmountSchema } from '@kit/shared';

const doc = fs.readFileSync(path.join(__dirname, '../../docs/chain.md'), 'utf8');
const row = (type: string) => doc.split('\n').find((l) => l.startsWith(`| \`${type}\``)) ?? '';

describe('docs/chain.md donation amounts', () => {
  it.each([
    ['donation.project', rmbAmountSchema],
    ['donation.donate', donationAmountSchema],
  ] as const)('%s says "at least 2 decimals", as the service checks', (type, schema) => {
    expect(schema.safeParse('10.005 RMB').success).toBe(true);
    expect(schema.safeParse('10.0 RMB').success).toBe(false);
    const decimals = [...row(type).matchAll(/(exactly|at least|up to) 2 decimals/g)].map((m) => m[1]);
    expect(decimals.length).toBeGreaterThan(0);
    expect(decimals.every((d) => d === 'at least')).toBe(true);
  });
});
