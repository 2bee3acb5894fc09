/**
 * A payment code drawn as payers' wallets draw it under their QR code: a Code 128 barcode (code set
 * C, two digits per symbol), as an SVG a scanner can read off a screen. The sandbox's payer page
 * shows one with its digits, for a tester to scan (or type) at the POS.
 */

/** The symbols' bars and spaces, 1 = bar module (Code 128, values 0–105, then the stop pattern). */
const SYMBOLS = (
  '11011001100 11001101100 11001100110 10010011000 10010001100 10001001100 10011001000 10011000100 ' +
  '10001100100 11001001000 11001000100 11000100100 10110011100 10011011100 10011001110 10111001100 ' +
  '10011101100 10011100110 11001110010 11001011100 11001001110 11011100100 11001110100 11101101110 ' +
  '11101001100 11100101100 11100100110 11101100100 11100110100 11100110010 11011011000 11011000110 ' +
  '11000110110 10100011000 10001011000 10001000110 10110001000 10001101000 10001100010 11010001000 ' +
  '11000101000 11000100010 10110111000 10110001110 10001101110 10111011000 10111000110 10001110110 ' +
  '11101110110 11010001110 11000101110 11011101000 11011100010 11011101110 11101011000 11101000110 ' +
  '11100010110 11101101000 11101100010 11100011010 11101111010 11001000010 11110001010 10100110000 ' +
  '10100001100 10010110000 10010000110 10000101100 10000100110 10110010000 10110000100 10011010000 ' +
  '10011000010 10000110100 10000110010 11000010010 11001010000 11110111010 11000010100 10001111010 ' +
  '10100111100 10010111100 10010011110 10111100100 10011110100 10011110010 11110100100 11110010100 ' +
  '11110010010 11011011110 11011110110 11110110110 10101111000 10100011110 10001011110 10111101000 ' +
  '10111100010 11110101000 11110100010 10111011110 10111101110 11101011110 11110101110 11010000100 ' +
  '11010010000 11010011100 1100011101011 '
)
  .trim()
  .split(' ');
const START_C = 105;
const STOP = 106;
/** Blank modules either side, as scanners need (at least ten). */
const QUIET = 10;

/** The modules of `digits` (an even number of digits) in Code 128 C, start to stop with the check symbol. */
export function code128c(digits: string): string {
  if (!/^(\d\d)+$/.test(digits)) throw new TypeError('Code 128 C takes an even number of digits');
  const values = digits.match(/\d\d/g)!.map(Number);
  const check = (START_C + values.reduce((sum, v, i) => sum + v * (i + 1), 0)) % 103;
  return [START_C, ...values, check, STOP].map((v) => SYMBOLS[v]).join('');
}

/** The barcode as an SVG image, `height` modules tall. */
export function code128Svg(digits: string, height = 60): string {
  const modules = code128c(digits);
  const width = modules.length + 2 * QUIET;
  let rects = '';
  for (let i = 0; i < modules.length;) {
    if (modules[i] !== '1') {
      i++;
      continue;
    }
    let run = 1;
    while (modules[i + run] === '1') run++;
    rects += `<rect x="${QUIET + i}" y="0" width="${run}" height="${height}"/>`;
    i += run;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width * 3}" height="${height * 3}" shape-rendering="crispEdges"><rect width="${width}" height="${height}" fill="#fff"/><g fill="#000">${rects}</g></svg>`;
}
