/** The payment code's barcode is the Code 128 a scanner reads: the modules JsBarcode 3.12 (CODE128C) draws for the same digits. */
import { code128c, code128Svg } from './barcode';

test('Code 128 C of an 18-digit payment code: start C, nine pairs, the check symbol, stop', () => {
  expect(code128c('134567890123456789')).toBe(
    '11010011100100110111001011101100010000101100110110111101100110110011101101110101110110001000010110011011011110111100100101100011101011',
  );
  // 11 modules a symbol (start, 9 pairs, check), 13 for the stop.
  expect(code128c('280000000000000000')).toHaveLength(11 * 11 + 13);
  expect(code128Svg('134567890123456789')).toMatch(/^<svg [^>]*viewBox="0 0 154 60"/);
  expect(() => code128c('12345')).toThrow('even number of digits');
});
