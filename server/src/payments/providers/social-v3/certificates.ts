/**
 * Certificate mode: `GET /v3/certificates` answers the platform certificates, each encrypted under
 * the APIv3 key. Decrypting them is what makes them trusted (no CA chain is checked); a certificate
 * whose own serial differs from the `serial_no` it is listed under is refused.
 */
import { z } from 'zod';
import { aeadDecrypt, aeadEncrypt, AEAD_ALGORITHM } from './aead';
import { certificateInfo, normalSerial, type CertificateInfo } from './keys';

const certificatesAnswer = z.object({
  data: z.array(
    z.object({
      serial_no: z.string().min(1),
      effective_time: z.string().optional(),
      expire_time: z.string().optional(),
      encrypt_certificate: z.object({
        algorithm: z.string(),
        nonce: z.string(),
        associated_data: z.string().optional(),
        ciphertext: z.string(),
      }),
    }),
  ),
});

export class CertificatesError extends Error {}

/** The certificates an answer lists that are valid at `now`; throws when the answer cannot be trusted. */
export function decodeCertificates(body: string, apiV3Key: string, now: number): CertificateInfo[] {
  let parsed: z.infer<typeof certificatesAnswer>;
  try {
    parsed = certificatesAnswer.parse(JSON.parse(body));
  } catch {
    throw new CertificatesError('the certificates answer is not the documented JSON');
  }
  const out: CertificateInfo[] = [];
  for (const entry of parsed.data) {
    const pem = aeadDecrypt(entry.encrypt_certificate, apiV3Key);
    const info = certificateInfo(pem);
    if (info.serial !== normalSerial(entry.serial_no)) throw new CertificatesError(`certificate listed as ${entry.serial_no} has serial ${info.serial}`);
    if (info.notBefore <= now && info.notAfter > now) out.push(info);
  }
  return out;
}

/** The platform's side (the sandbox): one entry of the `/v3/certificates` answer. */
export function encryptCertificateEntry(pem: string, apiV3Key: string, nonce: string): object {
  const info = certificateInfo(pem);
  const cst = (ms: number) => new Date(ms + 8 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, '+08:00');
  return {
    serial_no: info.serial,
    effective_time: cst(info.notBefore),
    expire_time: cst(info.notAfter),
    encrypt_certificate: { algorithm: AEAD_ALGORITHM, nonce, associated_data: 'certificate', ciphertext: aeadEncrypt(pem, apiV3Key, nonce, 'certificate') },
  };
}
