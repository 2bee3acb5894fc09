/** @jest-environment jsdom */
/**
 * The camera of "Scan the payer's code", through `PayerCode` with the store behind it: shown where
 * the browser has cameras, a code read is charged, and the camera is released when a code is read,
 * when the cashier stops it, when a charge is under way, when the screen goes away, and when it is
 * granted only after it was stopped. The frames are read by a stand-in `BarcodeDetector` (the
 * library's path is exercised in real Chromium: test/browser/pos-payer-code.test.ts).
 */
import { fireEvent, screen } from '@testing-library/dom';
import { PayerCode } from './PayerCode';
import { PosAppContext, createPosApp } from '../state/app';
import { act, flush, render } from '../test/render';
import { deferred, fakeApi, type FakeApi } from '../test/fake-api';

const PAYMENT_CODE = '134567890123456789';

/** What the stand-in detector sees in the next frames; an empty frame once they are used up. */
let frames: string[][] = [];
(window as unknown as { BarcodeDetector: unknown }).BarcodeDetector = class {
  static getSupportedFormats = async () => ['code_128', 'qr_code'];
  async detect() {
    return (frames.shift() ?? []).map((rawValue) => ({ rawValue }));
  }
};
HTMLMediaElement.prototype.play = jest.fn(async () => undefined);

/** A camera stream with one track, and whether it was stopped. */
function cameraStream() {
  const track = { stop: jest.fn() };
  return { stream: { getTracks: () => [track] } as unknown as MediaStream, track };
}

let getUserMedia: jest.Mock;
let mounted: { unmount(): void } | null = null;

beforeEach(() => {
  frames = [];
  getUserMedia = jest.fn();
  Object.defineProperty(navigator, 'mediaDevices', { value: { getUserMedia }, configurable: true });
});
afterEach(() => {
  mounted?.unmount();
  mounted = null;
  jest.useRealTimers();
});

async function show(api: FakeApi = fakeApi()) {
  const app = createPosApp({ api: () => api });
  mounted = render(
    <PosAppContext.Provider value={app}>
      <PayerCode prepayId="P1abc" />
    </PosAppContext.Provider>,
  );
  await flush();
  return app;
}
const cameraButton = () => screen.queryByTestId('payer-code-camera');
const click = async (el: Element) => {
  await act(async () => {
    fireEvent.click(el);
  });
  await flush();
};
/** The page's clock moved on by `ms`: the reading loop reads a frame a tenth of a second after the last. */
async function later(ms: number) {
  await act(async () => {
    await jest.advanceTimersByTimeAsync(ms);
  });
  await flush();
}

describe("the payer's code camera", () => {
  it('is offered only where the browser has cameras', async () => {
    Object.defineProperty(navigator, 'mediaDevices', { value: undefined, configurable: true });
    await show();
    expect(cameraButton()).toBeNull();
    mounted!.unmount();
    Object.defineProperty(navigator, 'mediaDevices', { value: { getUserMedia }, configurable: true });
    await show();
    expect(cameraButton()?.textContent).toBe('Use the camera');
  });

  it('charges the payment code it reads, passes over other codes, and lets the camera go', async () => {
    jest.useFakeTimers();
    const api = fakeApi();
    const app = await show(api);
    const { stream, track } = cameraStream();
    getUserMedia.mockResolvedValue(stream);
    frames = [[], ['https://shop.example/menu'], ['https://shop.example/menu', PAYMENT_CODE]];
    await click(cameraButton()!);
    expect(getUserMedia).toHaveBeenCalledWith(expect.objectContaining({ video: expect.objectContaining({ facingMode: 'environment' }), audio: false }));
    expect(screen.getByTestId('payer-code-video')).toBeTruthy();
    expect(cameraButton()!.textContent).toBe('Stop the camera');
    await later(100);
    expect(api.payCode).not.toHaveBeenCalled(); // a frame with no code, then one with another code
    expect(track.stop).not.toHaveBeenCalled();
    await later(100);
    expect(api.payCode).toHaveBeenCalledWith('P1abc', PAYMENT_CODE);
    expect(api.payCode).toHaveBeenCalledTimes(1);
    expect(track.stop).toHaveBeenCalled();
    expect(screen.queryByTestId('payer-code-video')).toBeNull();
    await flush();
    expect(app.codePay.getState().phase).toBe('paid');
  });

  it('lets the camera go when the cashier stops it, when a code typed is charged, and when the screen goes away', async () => {
    const api = fakeApi();
    await show(api);
    const streams = [cameraStream(), cameraStream(), cameraStream()];
    for (const s of streams) getUserMedia.mockResolvedValueOnce(s.stream);

    await click(cameraButton()!);
    expect(screen.getByTestId('payer-code-camera-box').dataset.state).toBe('on');
    await click(cameraButton()!);
    expect(streams[0].track.stop).toHaveBeenCalled();
    expect(screen.queryByTestId('payer-code-video')).toBeNull();

    const charging = deferred<Awaited<ReturnType<FakeApi['payCode']>>>();
    api.payCode.mockReturnValueOnce(charging.promise);
    await click(cameraButton()!);
    await act(async () => {
      fireEvent.change(screen.getByTestId('payer-code-input'), { target: { value: PAYMENT_CODE } });
      fireEvent.submit(screen.getByTestId('payer-code-input').closest('form')!);
    });
    await flush();
    expect(streams[1].track.stop).toHaveBeenCalled();
    expect(cameraButton()!.hasAttribute('disabled')).toBe(true);
    await act(async () => charging.resolve({ version: 1, status: 'success', payment: { result: 'refused', reason: 'code', platformCode: 'AUTHCODEEXPIRE' } }));
    await flush();

    await click(cameraButton()!);
    // Starting the camera for a fresh code clears what the last one did.
    expect(screen.queryByTestId('payer-code-message')).toBeNull();
    expect(streams[2].track.stop).not.toHaveBeenCalled();
    mounted!.unmount();
    mounted = null;
    expect(streams[2].track.stop).toHaveBeenCalled();
  });

  it('lets a camera granted after it was stopped go at once', async () => {
    await show();
    const granted = deferred<MediaStream>();
    getUserMedia.mockReturnValueOnce(granted.promise);
    await click(cameraButton()!);
    expect(screen.getByTestId('payer-code-camera-box').dataset.state).toBe('starting');
    expect(screen.getByText('Starting the camera…')).toBeTruthy();
    await click(cameraButton()!);
    const { stream, track } = cameraStream();
    await act(async () => granted.resolve(stream));
    await flush();
    expect(track.stop).toHaveBeenCalled();
  });

  it('says so when the camera cannot be opened, and the field still takes the scanner', async () => {
    await show();
    getUserMedia.mockRejectedValueOnce(new DOMException('Permission denied', 'NotAllowedError'));
    await click(cameraButton()!);
    expect(screen.getByTestId('payer-code-camera-failed').textContent).toBe('The camera could not be opened. Use the scanner, or type the digits.');
    expect(cameraButton()!.textContent).toBe('Use the camera');
    expect(screen.getByTestId('payer-code-input').hasAttribute('disabled')).toBe(false);
  });
});
