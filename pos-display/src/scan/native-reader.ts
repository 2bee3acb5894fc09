/** The browser's own barcode reader (`BarcodeDetector`, the Shape Detection API) as a `CodeReader`. */
import type { CodeReader } from './reader';

/** `BarcodeDetector` as far as the display uses it (TypeScript's DOM library does not declare it). */
export interface Detector {
  detect(source: HTMLVideoElement): Promise<Array<{ rawValue: string }>>;
}
export interface DetectorClass {
  new (options: { formats: string[] }): Detector;
  getSupportedFormats?: () => Promise<string[]>;
}

export function nativeReader(detector: Detector): CodeReader {
  return {
    kind: 'native',
    read: async (frame) => (await detector.detect(frame)).map((b) => b.rawValue),
  };
}
