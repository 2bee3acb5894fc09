/**
 * The mini-program code the social platform drew for the order (`POS_MP_CODE=platform`), fetched
 * once per order from the router (which keeps it, so a redraw costs the platform nothing). When the
 * platform cannot make it, the display says why and offers the scan-code QR instead.
 */
import { useEffect, useState } from 'react';
import { usePosApp } from '../state/app';
import { useT } from '../i18n/use-t';
import { describeFailure } from '../i18n/failure';
import type { Msg } from '../i18n/i18n';

export interface PlatformCodeProps {
  prepayId: string;
  label: string;
  onScanCode: () => void;
}

export function PlatformCode({ prepayId, label, onScanCode }: PlatformCodeProps) {
  const { api } = usePosApp();
  const t = useT();
  const [src, setSrc] = useState<string | null>(null);
  const [problem, setProblem] = useState<Msg | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const gone = new AbortController();
    setSrc(null);
    setProblem(null);
    api.miniProgramCode(prepayId, gone.signal).then(
      (url) => {
        if (!gone.signal.aborted) setSrc(url);
      },
      (e: unknown) => {
        if (!gone.signal.aborted) setProblem(describeFailure(e));
      },
    );
    return () => gone.abort();
  }, [api, prepayId, attempt]);

  if (problem)
    return (
      <div className="qr-missing mp-code-failed" role="alert" data-testid="mp-code-error">
        <p className="message error">{t('pay.mpCodeUnavailable', { reason: problem })}</p>
        <div className="row">
          <button type="button" className="primary" data-testid="mp-code-to-scan" onClick={onScanCode}>
            {t('pay.mpCodeToScan')}
          </button>
          <button type="button" className="secondary" data-testid="mp-code-retry" onClick={() => setAttempt((n) => n + 1)}>
            {t('pay.mpCodeRetry')}
          </button>
        </div>
      </div>
    );
  return (
    <div className="qr">
      {src ? (
        <img data-testid="pay-qr" data-code="platform" src={src} alt={label} draggable={false} />
      ) : (
        <div className="qr-placeholder" aria-busy="true" aria-label={t('pay.mpCodeLoading')} />
      )}
    </div>
  );
}
