/**
 * The addresses the service really listens on, for the ready banner: `HOST` `0.0.0.0` (or `::`)
 * is every address of the machine, which the banner lists, not only the `127.0.0.1` a person on
 * the machine uses; and whether a URL is this machine's loopback (production refuses a plain-HTTP
 * `PUBLIC_URL` elsewhere, `production-refusals.ts`).
 */
import os from 'node:os';

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

/** Whether a URL's host is this machine's loopback. */
export function isLoopbackUrl(url: string): boolean {
  try {
    return LOOPBACK_HOST.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

export function listensOnAllAddresses(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

/** `http://address:port` for each address the service is reached at: loopback first, then the network's. */
export function listeningUrls(host: string, port: number, basePath: string, interfaces = os.networkInterfaces()): string[] {
  const url = (address: string) => `http://${address.includes(':') ? `[${address}]` : address}:${port}${basePath}`;
  if (!listensOnAllAddresses(host)) return [url(host)];
  const ipv6 = host === '::';
  const others = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((i) => !i.internal && (i.family === 'IPv4' || (ipv6 && !i.address.startsWith('fe80:'))))
    .map((i) => i.address);
  return [url('127.0.0.1'), ...others.map(url)];
}
