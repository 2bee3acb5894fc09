/**
 * The v2 merchant API certificate's settings (`PAY_V2_CLIENT_*`): the PEM pair (text or paths) or the
 * PKCS#12 bundle (path or base64) with its password, refused at start naming the setting when a half
 * is missing, a file cannot be read, the key is not the certificate's, the password is wrong or the
 * bundle uses the legacy cipher Node's OpenSSL 3 cannot read; and which calls present it (every
 * `/secapi/` one). The development certificate is the sandbox's (`sandbox/src/v3/dev-credentials.test.ts`).
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { loadConfig } from '../../../configuration';
import { needsClientCertificate, PROTOCOL_PATHS, type ProtocolOp } from '../protocol-v2/client';
import { clientTlsOf } from './client-certificate';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'v2-client-cert-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const pemKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const key = pemKey();
const write = (name: string, content: string | Buffer) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
};
const keyFile = write('apiclient_key.pem', key);
// The merchant's certificate over that key, as the platform's download holds one (made by the openssl CLI).
const certFile = path.join(dir, 'apiclient_cert.pem');
execFileSync('openssl', ['req', '-x509', '-key', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=1900000109'], { stdio: 'ignore' });
const cert = fs.readFileSync(certFile, 'utf8');
/** The bundle as `openssl pkcs12 -export` makes it today, and with the legacy cipher of older downloads. */
const p12 = (legacy: boolean) => {
  const out = path.join(dir, legacy ? 'legacy.p12' : 'apiclient_cert.p12');
  execFileSync('openssl', [
    'pkcs12',
    '-export',
    ...(legacy ? ['-legacy'] : []),
    '-in',
    certFile,
    '-inkey',
    keyFile,
    '-out',
    out,
    '-passout',
    'pass:1900000109',
  ]);
  return out;
};
const problem = (env: NodeJS.ProcessEnv): string => {
  try {
    loadConfig({ PAY_PROTOCOL: 'v2', ...env });
    return '';
  } catch (e) {
    return (e as Error).message;
  }
};

describe('the v2 merchant API certificate settings', () => {
  test('none of them: nothing configured (the calls that need it are refused naming the settings, unless a played platform is handed one)', () => {
    expect(clientTlsOf({})).toBeUndefined();
    expect(problem({})).toBe('');
  });

  test('the PEM pair as text or paths; the key must be the certificate’s', () => {
    expect(clientTlsOf({ PAY_V2_CLIENT_CERT: cert, PAY_V2_CLIENT_KEY: key })).toEqual({ cert: cert.trim(), key: key.trim() });
    expect(clientTlsOf({ PAY_V2_CLIENT_CERT: certFile, PAY_V2_CLIENT_KEY: keyFile })).toEqual({ cert: cert.trim(), key: key.trim() });
    expect(problem({ PAY_V2_CLIENT_CERT: certFile, PAY_V2_CLIENT_KEY: keyFile })).toBe('');
    expect(problem({ PAY_V2_CLIENT_CERT: certFile })).toMatch(/^Invalid configuration:\n {2}PAY_V2_CLIENT_KEY: required with PAY_V2_CLIENT_CERT/);
    expect(problem({ PAY_V2_CLIENT_KEY: keyFile })).toMatch(/^Invalid configuration:\n {2}PAY_V2_CLIENT_CERT: required with PAY_V2_CLIENT_KEY/);
    expect(problem({ PAY_V2_CLIENT_CERT: certFile, PAY_V2_CLIENT_KEY: pemKey() })).toContain('PAY_V2_CLIENT_KEY: not the private key of PAY_V2_CLIENT_CERT');
    expect(problem({ PAY_V2_CLIENT_CERT: path.join(dir, 'missing.pem'), PAY_V2_CLIENT_KEY: keyFile })).toContain(
      'PAY_V2_CLIENT_CERT: neither PEM text nor a readable PEM file (ENOENT)',
    );
    expect(problem({ PAY_V2_CLIENT_CERT: key, PAY_V2_CLIENT_KEY: keyFile })).toContain('PAY_V2_CLIENT_CERT: not an X.509 certificate');
    expect(problem({ PAY_V2_CLIENT_CERT: certFile, PAY_V2_CLIENT_KEY: cert })).toContain('PAY_V2_CLIENT_KEY: not a private key');
  });

  test('the PKCS#12 bundle by path or in base64, opened by its password; a wrong one, a legacy bundle or both forms at once are refused', () => {
    const file = p12(false);
    const byPath = clientTlsOf({ PAY_V2_CLIENT_P12: file, PAY_V2_CLIENT_P12_PASSWORD: '1900000109' });
    expect(byPath).toEqual({ pfx: fs.readFileSync(file), passphrase: '1900000109' });
    // What a TLS client presents from it is the certificate.
    const context = tls.createSecureContext(byPath as tls.SecureContextOptions);
    expect(context).toBeDefined();
    const base64 = fs.readFileSync(file).toString('base64');
    expect(clientTlsOf({ PAY_V2_CLIENT_P12: base64, PAY_V2_CLIENT_P12_PASSWORD: '1900000109' })).toEqual(byPath);
    expect(problem({ PAY_V2_CLIENT_P12: file, PAY_V2_CLIENT_P12_PASSWORD: '1900000109' })).toBe('');
    expect(problem({ PAY_V2_CLIENT_P12: file })).toContain('PAY_V2_CLIENT_P12_PASSWORD: required with PAY_V2_CLIENT_P12');
    expect(problem({ PAY_V2_CLIENT_P12: file, PAY_V2_CLIENT_P12_PASSWORD: 'wrong' })).toContain(
      'PAY_V2_CLIENT_P12_PASSWORD: does not open PAY_V2_CLIENT_P12 (mac verify failure)',
    );
    expect(problem({ PAY_V2_CLIENT_P12: p12(true), PAY_V2_CLIENT_P12_PASSWORD: '1900000109' })).toContain(
      'PAY_V2_CLIENT_P12: encrypted with a legacy cipher (RC2)',
    );
    expect(problem({ PAY_V2_CLIENT_P12: path.join(dir, 'missing.p12'), PAY_V2_CLIENT_P12_PASSWORD: 'x' })).toContain(
      'PAY_V2_CLIENT_P12: neither a readable file nor base64 text (ENOENT)',
    );
    expect(problem({ PAY_V2_CLIENT_P12: certFile, PAY_V2_CLIENT_P12_PASSWORD: 'x' })).toContain('PAY_V2_CLIENT_P12: not a PKCS#12 bundle');
    expect(problem({ PAY_V2_CLIENT_P12: file, PAY_V2_CLIENT_P12_PASSWORD: '1900000109', PAY_V2_CLIENT_CERT: certFile })).toContain(
      'PAY_V2_CLIENT_P12: set it or PAY_V2_CLIENT_CERT with PAY_V2_CLIENT_KEY, not both',
    );
    expect(problem({ PAY_V2_CLIENT_P12_PASSWORD: '1900000109' })).toContain('PAY_V2_CLIENT_P12_PASSWORD: only with PAY_V2_CLIENT_P12');
  });

  test('on API v3 they are not read', () => {
    expect(problem({ PAY_PROTOCOL: 'v3', PAY_V2_CLIENT_CERT: 'garbage' })).toBe('');
  });

  test('every /secapi/ call presents it (refunds, profit-sharing splits and finishing, reversing a code), and no other', () => {
    const ops = Object.keys(PROTOCOL_PATHS) as ProtocolOp[];
    expect(ops.filter(needsClientCertificate).sort()).toEqual(['psFinish', 'psSplit', 'psSplitAndFinish', 'refund', 'reverse']);
  });
});
