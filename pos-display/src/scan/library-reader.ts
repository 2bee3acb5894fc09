/**
 * ZXing as a `CodeReader`, for browsers without a `BarcodeDetector`: the page draws a frame and
 * hands its pixels to a worker (`library-worker.ts`), so that reading (tens of milliseconds a frame
 * on a small device) never holds up the screen. `code-reader.ts` loads this module only when it is
 * needed; the worker is a file of its own, fetched then.
 */
import type { CodeReader } from './reader';

/** A frame for the worker: its RGBA pixels, transferred. */
export interface FrameAsked {
  id: number;
  width: number;
  height: number;
  pixels: ArrayBuffer;
}
/** The worker's answer: the codes read in frame `id` (id 0: the worker has loaded). */
export interface FrameRead {
  id: number;
  codes: string[];
}

/** Frames wider than this are scaled down first: enough for a barcode's bars, and a bounded cost per frame. */
const MAX_WIDTH = 1280;

/** The reader, once its worker has loaded (rejects when it cannot: the camera then says so). */
export function libraryReader(): Promise<CodeReader> {
  const worker = new Worker(new URL('./library-worker.ts', import.meta.url), { type: 'module' });
  const answers = new Map<number, (codes: string[]) => void>();
  let lastId = 0;
  const loaded = new Promise<void>((resolve, reject) => {
    worker.onerror = (e) => {
      e.preventDefault();
      reject(new Error(`the code reader did not load: ${e.message || e.type}`));
      // A worker that failed later: the frames asked for are read as showing nothing.
      for (const answer of answers.values()) answer([]);
      answers.clear();
    };
    worker.onmessage = ({ data }: MessageEvent<FrameRead>) => {
      if (data.id === 0) return resolve();
      answers.get(data.id)?.(data.codes);
      answers.delete(data.id);
    };
  });
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', { willReadFrequently: true });
  const reader: CodeReader = {
    kind: 'library',
    read(frame) {
      if (!context || !frame.videoWidth || !frame.videoHeight) return Promise.resolve([]);
      const scale = Math.min(1, MAX_WIDTH / frame.videoWidth);
      const width = Math.round(frame.videoWidth * scale);
      const height = Math.round(frame.videoHeight * scale);
      if (canvas.width !== width || canvas.height !== height) Object.assign(canvas, { width, height });
      context.drawImage(frame, 0, 0, width, height);
      const pixels = context.getImageData(0, 0, width, height).data.buffer;
      const id = ++lastId;
      return new Promise((resolve) => {
        answers.set(id, resolve);
        worker.postMessage({ id, width, height, pixels } satisfies FrameAsked, [pixels]);
      });
    },
  };
  return loaded.then(() => reader);
}
