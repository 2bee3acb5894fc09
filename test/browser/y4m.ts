/**
 * A picture as a one-frame YUV4MPEG2 video (4:2:0, the `C420jpeg` layout Chromium's fake camera
 * reads with `--use-file-for-fake-video-capture`), so that a browser test can hold a code in front
 * of a camera. RGB to Y′CbCr by ITU-R BT.601 in studio range, as a camera's I420 frames are.
 */
import { PNG } from 'pngjs';

/** The Y4M file of a PNG (its width and height made even, as 4:2:0 needs; the extra edge is white). */
export function y4mOfPng(pngBytes: Buffer): Buffer {
  const png = PNG.sync.read(pngBytes);
  const width = png.width + (png.width % 2);
  const height = png.height + (png.height % 2);
  const rgb = (x: number, y: number): [number, number, number] => {
    if (x >= png.width || y >= png.height) return [255, 255, 255];
    const i = (y * png.width + x) * 4;
    return [png.data[i], png.data[i + 1], png.data[i + 2]];
  };
  const luma = Buffer.alloc(width * height);
  const cb = Buffer.alloc((width / 2) * (height / 2));
  const cr = Buffer.alloc(cb.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = rgb(x, y);
      luma[y * width + x] = ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16;
    }
  }
  for (let y = 0; y < height; y += 2) {
    for (let x = 0; x < width; x += 2) {
      // The four pixels' average colour: one chroma sample per 2×2 block.
      const block = [rgb(x, y), rgb(x + 1, y), rgb(x, y + 1), rgb(x + 1, y + 1)];
      const [r, g, b] = [0, 1, 2].map((c) => block.reduce((sum, p) => sum + p[c], 0) / 4);
      const k = (y / 2) * (width / 2) + x / 2;
      cb[k] = Math.round((-38 * r - 74 * g + 112 * b) / 256) + 128;
      cr[k] = Math.round((112 * r - 94 * g - 18 * b) / 256) + 128;
    }
  }
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F30:1 Ip A1:1 C420jpeg\nFRAME\n`, 'ascii');
  return Buffer.concat([header, luma, cb, cr]);
}
