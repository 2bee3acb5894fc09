/**
 * The sandbox's mini-program code: a plain QR code (the platform draws a round one only its app
 * reads) of the payer page's link with the same `scene`, so that a phone's camera or browser opens
 * it, with "SANDBOX CODE" written under it so that nobody takes it for the platform's.
 */
import { deflateSync } from 'node:zlib';
import QRCode from 'qrcode';

/** 5×7 glyphs of the label, one string of 0/1 per row. */
const GLYPHS: Record<string, string[]> = {
  S: ['01111', '10000', '10000', '01110', '00001', '00001', '11110'],
  A: ['01110', '10001', '10001', '11111', '10001', '10001', '10001'],
  N: ['10001', '11001', '10101', '10011', '10001', '10001', '10001'],
  D: ['11110', '10001', '10001', '10001', '10001', '10001', '11110'],
  B: ['11110', '10001', '10001', '11110', '10001', '10001', '11110'],
  O: ['01110', '10001', '10001', '10001', '10001', '10001', '01110'],
  X: ['10001', '10001', '01010', '00100', '01010', '10001', '10001'],
  C: ['01111', '10000', '10000', '10000', '10000', '10000', '01111'],
  E: ['11111', '10000', '10000', '11110', '10000', '10000', '11111'],
  ' ': ['00000', '00000', '00000', '00000', '00000', '00000', '00000'],
};
export const SANDBOX_CODE_LABEL = 'SANDBOX CODE';
const QUIET_MODULES = 4;

/** A PNG about `width` pixels wide: the QR code of `content` and the label under it. */
export function sandboxCodePng(content: string, width: number): Buffer {
  const qr = QRCode.create(content, { errorCorrectionLevel: 'M' });
  const size = qr.modules.size;
  const scale = Math.max(2, Math.floor(width / (size + 2 * QUIET_MODULES)));
  const side = (size + 2 * QUIET_MODULES) * scale;
  const dot = Math.max(1, Math.floor(side / (SANDBOX_CODE_LABEL.length * 6 * 1.6)));
  const labelHeight = 7 * dot + 2 * QUIET_MODULES * scale;
  const png = { width: side, height: side + labelHeight, data: Buffer.alloc(side * (side + labelHeight) * 3, 255) };
  const paint = (x: number, y: number, w: number, h: number, rgb: [number, number, number]) => {
    for (let yy = y; yy < y + h; yy++)
      for (let xx = x; xx < x + w; xx++) {
        const i = (yy * png.width + xx) * 3;
        png.data[i] = rgb[0];
        png.data[i + 1] = rgb[1];
        png.data[i + 2] = rgb[2];
      }
  };
  for (let r = 0; r < size; r++)
    for (let c = 0; c < size; c++) if (qr.modules.get(r, c)) paint((c + QUIET_MODULES) * scale, (r + QUIET_MODULES) * scale, scale, scale, [0, 0, 0]);
  // The label, in a colour no scanner mistakes for modules, below the QR code's quiet zone.
  const textWidth = SANDBOX_CODE_LABEL.length * 6 * dot - dot;
  let x = Math.floor((side - textWidth) / 2);
  const y = side;
  for (const ch of SANDBOX_CODE_LABEL) {
    const glyph = GLYPHS[ch];
    for (let gy = 0; gy < 7; gy++) for (let gx = 0; gx < 5; gx++) if (glyph[gy][gx] === '1') paint(x + gx * dot, y + gy * dot, dot, dot, [200, 40, 40]);
    x += 6 * dot;
  }
  return encodePng(png.width, png.height, png.data);
}

/** A truecolour PNG of `rgb` (3 bytes a pixel), every row unfiltered: small enough for a code of two colours. */
function encodePng(width: number, height: number, rgb: Buffer): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) rgb.copy(raw, y * (width * 3 + 1) + 1, y * width * 3, (y + 1) * width * 3);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per sample
  header[9] = 2; // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
