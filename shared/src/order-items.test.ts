import { MAX_SHOWN_ITEMS, readOrderItems } from './order-items';

describe('what the payer page shows of extraInfo', () => {
  it('reads a list of items with quantities and line totals, and a note', () => {
    expect(
      readOrderItems({
        items: [
          { name: 'Latte', quantity: 2, amount: '36' },
          { name: 'Croissant', price: '8.50', qty: '3' },
        ],
        note: 'Table 4',
        internal: 'x',
      }),
    ).toEqual({
      items: [
        { name: 'Latte', quantity: 2, amount: '36.00' },
        { name: 'Croissant', quantity: 3, amount: '25.50' },
      ],
      more: 0,
      note: 'Table 4',
    });
  });

  it('takes a bare array, `goods`, `title` and `remark`, and extraInfo sent as JSON text', () => {
    expect(readOrderItems([{ title: 'Tea' }])).toEqual({ items: [{ name: 'Tea' }], more: 0 });
    expect(readOrderItems({ goods: [{ name: 'Cake', count: 1, price: '5' }], remark: 'no nuts' })).toEqual({
      items: [{ name: 'Cake', quantity: 1, amount: '5.00' }],
      more: 0,
      note: 'no nuts',
    });
    expect(readOrderItems(JSON.stringify({ items: [{ name: '拿铁', quantity: 1, amount: '18.00' }] }))).toEqual({
      items: [{ name: '拿铁', quantity: 1, amount: '18.00' }],
      more: 0,
    });
  });

  it('skips what it does not recognise and shows nothing for other extraInfo', () => {
    for (const v of [null, undefined, 42, 'order 17', { sku: 'A1' }, { items: 'Latte' }, { items: [{ quantity: 2 }, 'Latte', null] }, []]) {
      expect(readOrderItems(v)).toBeUndefined();
    }
    expect(readOrderItems({ items: [{ name: 'Ok', quantity: 0, amount: '1.234' }, { name: '  ' }] })).toEqual({ items: [{ name: 'Ok' }], more: 0 });
    expect(readOrderItems({ items: [{ name: 'Float', amount: 12.5, quantity: 1.5 }] })).toEqual({ items: [{ name: 'Float' }], more: 0 });
    expect(readOrderItems({ items: [{ name: 'Huge', price: '1000000.00', quantity: 2 }] })).toEqual({ items: [{ name: 'Huge', quantity: 2 }], more: 0 });
  });

  it('keeps names to one clean line of limited length and lists at most MAX_SHOWN_ITEMS', () => {
    const long = readOrderItems({ items: [{ name: `a\nb\u0000c   d${'x'.repeat(200)}` }] })!;
    expect(long.items[0].name.startsWith('a b c d')).toBe(true);
    expect([...long.items[0].name]).toHaveLength(80);
    expect(long.items[0].name.endsWith('…')).toBe(true);
    const many = readOrderItems({ items: Array.from({ length: 25 }, (_, i) => ({ name: `Item ${i}` })) })!;
    expect(many.items).toHaveLength(MAX_SHOWN_ITEMS);
    expect(many.more).toBe(5);
  });
});
