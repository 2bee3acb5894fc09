/** @jest-environment jsdom */
import { chooseCodeReader, codeReader, type ReaderHost } from './code-reader';
import { CODE_FORMATS, type CodeReader } from './reader';
import type { DetectorClass } from './native-reader';
import { libraryReader } from './library-reader';

// ZXing itself reads in real Chromium (test/browser/pos-payer-code.test.ts); here, whether it is loaded.
jest.mock('./library-reader', () => ({ libraryReader: jest.fn() }));

const library: CodeReader = { kind: 'library', read: async () => ['from the library'] };
const frame = document.createElement('video');

/** A `BarcodeDetector` that reads the formats it `knows` (refusing others when made), lists them unless `lists` is false, and sees `seen` in every frame. */
function detectorClass(knows: string[], { lists = true, seen = [] as string[] } = {}) {
  const made: Array<{ formats: string[] }> = [];
  class FakeDetector {
    constructor(options: { formats: string[] }) {
      made.push(options);
      if (options.formats.some((f) => !knows.includes(f))) throw new TypeError('unsupported format');
    }
    async detect() {
      return seen.map((rawValue) => ({ rawValue }));
    }
  }
  const cls = FakeDetector as unknown as DetectorClass;
  if (lists) cls.getSupportedFormats = async () => knows;
  return { cls, made };
}

describe('the code reader the camera uses', () => {
  it("is the browser's own detector when it reads both formats: the library is not loaded", async () => {
    const { cls, made } = detectorClass(['ean_13', 'code_128', 'qr_code'], { seen: ['134567890123456789'] });
    const load = jest.fn(async () => library);
    const reader = await chooseCodeReader({ BarcodeDetector: cls }, load);
    expect(reader.kind).toBe('native');
    expect(made).toEqual([{ formats: [...CODE_FORMATS] }]);
    expect(await reader.read(frame)).toEqual(['134567890123456789']);
    expect(load).not.toHaveBeenCalled();
  });

  it('is the library where the browser has no detector, or one without Code 128 or QR codes, or one that fails', async () => {
    const hosts: ReaderHost[] = [
      {},
      { BarcodeDetector: detectorClass(['qr_code']).cls },
      { BarcodeDetector: detectorClass(['code_128', 'ean_13']).cls },
      { BarcodeDetector: Object.assign(detectorClass(['code_128', 'qr_code']).cls, { getSupportedFormats: () => Promise.reject(new Error('no service')) }) },
    ];
    for (const host of hosts) {
      const load = jest.fn(async () => library);
      expect(await chooseCodeReader(host, load)).toBe(library);
      expect(load).toHaveBeenCalledTimes(1);
    }
  });

  it('asks an older detector without a list of formats for both, and takes the library when it refuses', async () => {
    const load = jest.fn(async () => library);
    expect((await chooseCodeReader({ BarcodeDetector: detectorClass(['code_128', 'qr_code'], { lists: false }).cls }, load)).kind).toBe('native');
    expect(load).not.toHaveBeenCalled();
    expect(await chooseCodeReader({ BarcodeDetector: detectorClass(['code_128'], { lists: false }).cls }, load)).toBe(library);
  });

  it('is chosen once for the page; a library that did not load is tried again', async () => {
    const load = libraryReader as jest.MockedFunction<typeof libraryReader>;
    load.mockRejectedValueOnce(new Error('the code reader did not load: error'));
    await expect(codeReader()).rejects.toThrow('did not load');
    load.mockResolvedValue(library);
    const chosen = codeReader();
    expect(await chosen).toBe(library);
    (window as unknown as ReaderHost).BarcodeDetector = detectorClass(['code_128', 'qr_code']).cls;
    expect(codeReader()).toBe(chosen);
    expect(load).toHaveBeenCalledTimes(2);
    delete (window as unknown as ReaderHost).BarcodeDetector;
  });
});
