/**
 * The camera of "Scan the payer's code" (7.4): shown wherever the browser has cameras
 * (`navigator.mediaDevices`); its frames go through the page's one `CodeReader` (the browser's
 * `BarcodeDetector`, or ZXing where there is none) until a code `accept` takes is read. The camera
 * is released when that code is read, when the cashier stops it, when a charge is under way and
 * when the screen goes away.
 */
import { useEffect, useRef, useState } from 'react';
import { codeReader } from '../scan/code-reader';
import { useT } from '../i18n/use-t';

/** A pause between two frames read: a code is found as fast, and the reader leaves the screen time to draw. */
const READ_EVERY_MS = 100;

type CameraState = 'off' | 'starting' | 'on';
type CameraFailure = 'camera' | 'reader' | null;

export interface CodeCameraProps {
  /** Whether a code read is the one wanted (others are passed over, and the camera goes on). */
  accept: (code: string) => boolean;
  /** The code read; the camera is already released. */
  onCode: (code: string) => void;
  /** A charge is under way: no camera now. */
  disabled: boolean;
  /** Told when the camera starts and stops showing its picture. */
  onFilming?: (filming: boolean) => void;
}

export function CodeCamera({ accept, onCode, disabled, onFilming }: CodeCameraProps) {
  const t = useT();
  const [state, setState] = useState<CameraState>('off');
  const [failed, setFailed] = useState<CameraFailure>(null);
  const video = useRef<HTMLVideoElement>(null);
  // The latest callbacks, without restarting the camera when they change.
  const latest = useRef({ accept, onCode });
  latest.current = { accept, onCode };
  const wanted = state !== 'off';

  useEffect(() => {
    onFilming?.(wanted);
  }, [onFilming, wanted]);

  // A charge under way (a code typed or scanned meanwhile) releases the camera: one code at a time.
  useEffect(() => {
    if (disabled) setState('off');
  }, [disabled]);

  useEffect(() => {
    const el = video.current;
    if (!wanted || !el) return;
    let stopped = false;
    let stream: MediaStream | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fail = (why: Exclude<CameraFailure, null>) => {
      if (stopped) return;
      setFailed(why);
      setState('off');
    };
    // Asked for at once, so that the library (where needed) loads while the camera starts.
    const reader = codeReader();
    reader.catch(() => fail('reader'));

    void (async () => {
      try {
        const s = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment', width: { ideal: 1280 } }, audio: false });
        if (stopped) return s.getTracks().forEach((track) => track.stop());
        stream = s;
        el.srcObject = s;
        await el.play();
      } catch {
        return fail('camera');
      }
      if (stopped) return;
      setState('on');
      const frames = await reader.catch(() => null);
      const look = async () => {
        if (stopped || !frames) return;
        const codes = await frames.read(el).catch(() => [] as string[]);
        if (stopped) return;
        const code = codes.find((c) => latest.current.accept(c));
        if (code === undefined) {
          timer = setTimeout(() => void look(), READ_EVERY_MS);
          return;
        }
        setState('off');
        latest.current.onCode(code);
      };
      void look();
    })();

    return () => {
      stopped = true;
      clearTimeout(timer);
      stream?.getTracks().forEach((track) => track.stop());
      el.srcObject = null;
    };
  }, [wanted]);

  if (typeof navigator === 'undefined' || !navigator.mediaDevices?.getUserMedia) return null;
  return (
    <div className="payer-code-camera" data-testid="payer-code-camera-box" data-state={state}>
      <button
        type="button"
        className="secondary"
        data-testid="payer-code-camera"
        disabled={disabled}
        onClick={() => {
          setFailed(null);
          setState(wanted ? 'off' : 'starting');
        }}
      >
        {wanted ? t('code.cameraStop') : t('code.camera')}
      </button>
      {wanted && (
        <>
          <video ref={video} muted playsInline className="payer-code-video" data-testid="payer-code-video" />
          <p className="scan-hint">{state === 'starting' ? t('code.cameraStarting') : t('code.cameraHint')}</p>
        </>
      )}
      {failed && (
        <p className="message warn" role="alert" data-testid="payer-code-camera-failed" data-failure={failed}>
          {t(failed === 'camera' ? 'code.cameraFailed' : 'code.readerFailed')}
        </p>
      )}
    </div>
  );
}
