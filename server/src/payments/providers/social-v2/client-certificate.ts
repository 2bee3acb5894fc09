/**
 * The merchant API certificate (商户API证书) that protocol v2 presents as its TLS client certificate on
 * every `/secapi/` call (refunds, profit-sharing splits, reversing a payment code): the platform
 * refuses those calls without it. Given as the merchant platform's download holds it, either
 * `apiclient_cert.pem` with `apiclient_key.pem` (PEM text or paths) or `apiclient_cert.p12` with its
 * password, and checked at start (`settingsProblem`) so that a half, an unreadable file, a key that
 * is not the certificate's or a wrong password stops the start naming the setting. A development
 * plug-in that plays the platform hands its own development certificate as these settings
 * (`payments/providers/played.ts`), as it hands the API v3 keys: the service makes none.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import tls from 'node:tls';
import { readPem, V3KeyError } from '../social-v3/keys';

export interface ClientCertificateSettings {
  PAY_V2_CLIENT_CERT?: string;
  PAY_V2_CLIENT_KEY?: string;
  PAY_V2_CLIENT_P12?: string;
  PAY_V2_CLIENT_P12_PASSWORD?: string;
}

export const CLIENT_CERTIFICATE_SETTINGS = ['PAY_V2_CLIENT_CERT', 'PAY_V2_CLIENT_KEY', 'PAY_V2_CLIENT_P12', 'PAY_V2_CLIENT_P12_PASSWORD'] as const;

/** What the TLS client presents: a certificate and its key, or a PKCS#12 bundle and its password. */
export type ClientTls = { cert: string; key: string } | { pfx: Buffer; passphrase: string };

export class ClientCertificateError extends Error {
  constructor(
    readonly setting: keyof ClientCertificateSettings,
    message: string,
  ) {
    super(`${setting}: ${message}`);
  }
}

export const namesClientCertificate = (s: ClientCertificateSettings): boolean => CLIENT_CERTIFICATE_SETTINGS.some((k) => s[k] !== undefined);

/** The configured certificate, checked; undefined when none of its settings is given. Throws `ClientCertificateError`. */
export function clientTlsOf(s: ClientCertificateSettings): ClientTls | undefined {
  if (!namesClientCertificate(s)) return undefined;
  const cert = s.PAY_V2_CLIENT_CERT?.trim();
  const key = s.PAY_V2_CLIENT_KEY?.trim();
  const p12 = s.PAY_V2_CLIENT_P12?.trim();
  // A password is what it is: spaces included.
  const password = s.PAY_V2_CLIENT_P12_PASSWORD;
  if (p12) {
    if (cert || key) throw new ClientCertificateError('PAY_V2_CLIENT_P12', 'set it or PAY_V2_CLIENT_CERT with PAY_V2_CLIENT_KEY, not both');
    if (password === undefined)
      throw new ClientCertificateError(
        'PAY_V2_CLIENT_P12_PASSWORD',
        "required with PAY_V2_CLIENT_P12 (the platform's download sets it to the merchant number)",
      );
    const pfx = readP12(p12);
    try {
      tls.createSecureContext({ pfx, passphrase: password });
    } catch (e) {
      const why = (e as Error).message;
      if (/mac verify failure/i.test(why))
        throw new ClientCertificateError('PAY_V2_CLIENT_P12_PASSWORD', 'does not open PAY_V2_CLIENT_P12 (mac verify failure)');
      if (/unsupported/i.test(why))
        throw new ClientCertificateError(
          'PAY_V2_CLIENT_P12',
          "encrypted with a legacy cipher (RC2) that this Node's OpenSSL 3 no longer reads: set PAY_V2_CLIENT_CERT and PAY_V2_CLIENT_KEY from the same download (apiclient_cert.pem, apiclient_key.pem) instead, or convert it (`openssl pkcs12 -in apiclient_cert.p12 -legacy -nodes`)",
        );
      throw new ClientCertificateError('PAY_V2_CLIENT_P12', `not a PKCS#12 bundle of a certificate and its key (${why})`);
    }
    return { pfx, passphrase: password };
  }
  if (password !== undefined) throw new ClientCertificateError('PAY_V2_CLIENT_P12_PASSWORD', 'only with PAY_V2_CLIENT_P12');
  if (!cert) throw new ClientCertificateError('PAY_V2_CLIENT_CERT', 'required with PAY_V2_CLIENT_KEY (the merchant API certificate, apiclient_cert.pem)');
  if (!key) throw new ClientCertificateError('PAY_V2_CLIENT_KEY', "required with PAY_V2_CLIENT_CERT (the certificate's private key, apiclient_key.pem)");
  const certPem = pem('PAY_V2_CLIENT_CERT', cert);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(certPem);
  } catch (e) {
    throw new ClientCertificateError('PAY_V2_CLIENT_CERT', `not an X.509 certificate: ${(e as Error).message}`);
  }
  const keyPem = pem('PAY_V2_CLIENT_KEY', key);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(keyPem);
  } catch (e) {
    throw new ClientCertificateError('PAY_V2_CLIENT_KEY', `not a private key: ${(e as Error).message}`);
  }
  if (!x509.checkPrivateKey(privateKey)) throw new ClientCertificateError('PAY_V2_CLIENT_KEY', 'not the private key of PAY_V2_CLIENT_CERT');
  return { cert: certPem, key: keyPem };
}

function pem(setting: keyof ClientCertificateSettings, value: string): string {
  try {
    return readPem(value);
  } catch (e) {
    if (e instanceof V3KeyError) throw new ClientCertificateError(setting, e.message);
    throw e;
  }
}

/** A PKCS#12 bundle: the path of the `.p12` file, or its bytes in base64 (an environment variable holds no binary). */
function readP12(value: string): Buffer {
  try {
    return fs.readFileSync(value);
  } catch (e) {
    const compact = value.replace(/\s+/g, '');
    if (compact.length >= 64 && /^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return Buffer.from(compact, 'base64');
    throw new ClientCertificateError(
      'PAY_V2_CLIENT_P12',
      `neither a readable file nor base64 text (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
}
