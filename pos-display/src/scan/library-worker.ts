/**
 * ZXing (`@zxing/library`, the JavaScript port of the field's reference reader) at work off the
 * page's main thread: a frame's pixels in, the codes read in it out. Only its Code 128 and QR code
 * readers are imported, not the package's index (which pulls in every format ZXing has: 410 kB).
 */
import BinaryBitmap from '@zxing/library/esm/core/BinaryBitmap';
import DecodeHintType from '@zxing/library/esm/core/DecodeHintType';
import RGBLuminanceSource from '@zxing/library/esm/core/RGBLuminanceSource';
import HybridBinarizer from '@zxing/library/esm/core/common/HybridBinarizer';
import Code128Reader from '@zxing/library/esm/core/oned/Code128Reader';
import QRCodeReader from '@zxing/library/esm/core/qrcode/QRCodeReader';
import type { FrameAsked, FrameRead } from './library-reader';

// Every row of the frame, not only its middle half: the payer does not always hold the code in the centre.
const hints = new Map<DecodeHintType, unknown>([[DecodeHintType.TRY_HARDER, true]]);
const readers = [new Code128Reader(), new QRCodeReader()];

function read({ width, height, pixels }: FrameAsked): string[] {
  const bitmap = new BinaryBitmap(new HybridBinarizer(new RGBLuminanceSource(luminance(new Uint8ClampedArray(pixels)), width, height)));
  for (const reader of readers) {
    try {
      return [reader.decode(bitmap, hints).getText()];
    } catch {
      // Not in this frame (ZXing says so by throwing): the next reader, or the next frame.
    } finally {
      reader.reset();
    }
  }
  return [];
}

/** The frame's grey levels from its RGBA pixels, one byte a pixel (ITU-R BT.601 weights, as ZXing's own sources use). */
function luminance(rgba: Uint8ClampedArray): Uint8ClampedArray {
  const out = new Uint8ClampedArray(rgba.length / 4);
  for (let i = 0, j = 0; j < out.length; i += 4, j++) out[j] = (306 * rgba[i] + 601 * rgba[i + 1] + 117 * rgba[i + 2] + 0x200) >> 10;
  return out;
}

const scope = self as unknown as { onmessage: ((e: MessageEvent<FrameAsked>) => void) | null; postMessage(m: FrameRead): void };
scope.onmessage = (e) => scope.postMessage({ id: e.data.id, codes: read(e.data) });
scope.postMessage({ id: 0, codes: [] }); // loaded: ready for frames
