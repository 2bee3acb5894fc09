/**
 * The addresses the service really listens on, for the ready banner: `HOST` `0.0.0.0` (or `::`)
 * is every address of the machine, which the banner lists, not only the `127.0.0.1` a person on
 * the machine uses.
 */
import os from 'node:os';

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
