/**
 * What turns one camera frame into the codes it shows, chosen once per page: the browser's own
 * `BarcodeDetector` where it reads both formats wallets draw payment codes in, the ZXing library
 * otherwise (Chromium on Linux, Firefox and Safari on many devices have no detector). The library is
 * loaded only then, in a chunk and a worker of its own, so the display's first page does not carry it.
 */
import { nativeReader, type DetectorClass } from './native-reader';
import { CODE_FORMATS, type CodeReader } from './reader';

/** The page's window as far as the choice needs it. */
export interface ReaderHost {
  BarcodeDetector?: DetectorClass;
}

/** The browser's detector when it reads every format of `CODE_FORMATS`, else what `loadLibrary` gives. */
export async function chooseCodeReader(host: ReaderHost, loadLibrary: () => Promise<CodeReader>): Promise<CodeReader> {
  const Detector = host.BarcodeDetector;
  if (Detector) {
    try {
      // Older detectors have no list: they are asked for the formats and refuse what they lack.
      const supported: readonly string[] = (await Detector.getSupportedFormats?.()) ?? CODE_FORMATS;
      if (CODE_FORMATS.every((f) => supported.includes(f))) return nativeReader(new Detector({ formats: [...CODE_FORMATS] }));
    } catch {
      // A detector that cannot be made (unsupported formats, a broken platform service): the library.
    }
  }
  return loadLibrary();
}

let chosen: Promise<CodeReader> | null = null;

/** The page's one reader; a library chunk that failed to load is tried again on the next call. */
export function codeReader(): Promise<CodeReader> {
  chosen ??= chooseCodeReader(window as unknown as ReaderHost, async () => (await import('./library-reader')).libraryReader()).catch((e: unknown) => {
    chosen = null;
    throw e;
  });
  return chosen;
}
