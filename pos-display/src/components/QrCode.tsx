/** A QR code drawn by `qrcode` as an SVG image: sharp at any size, easy to decode from a screenshot. */
import { useEffect, useState } from 'react';
import QRCode from 'qrcode';
import { useT } from '../i18n/use-t';

export interface QrCodeProps {
  content: string;
  testId: string;
  label: string;
}

export function QrCode({ content, testId, label }: QrCodeProps) {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const t = useT();

  useEffect(() => {
    let live = true;
    QRCode.toString(content, { type: 'svg', margin: 4, errorCorrectionLevel: 'M', color: { dark: '#000000', light: '#ffffff' } }).then(
      (svg) => {
        if (!live) return;
        setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
        setFailed(false);
      },
      () => {
        if (live) setFailed(true);
      },
    );
    return () => {
      live = false;
    };
  }, [content]);

  if (failed)
    return (
      <div className="qr qr-failed" role="alert">
        {t('pay.qrFailed')}
      </div>
    );
  return (
    <div className="qr">{src ? <img data-testid={testId} src={src} alt={label} draggable={false} /> : <div className="qr-placeholder" aria-busy="true" />}</div>
  );
}
