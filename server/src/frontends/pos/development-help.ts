/**
 * Outside production, the display shows its links as text under the code and says how a phone
 * reaches them. A display opened at 127.0.0.1 puts 127.0.0.1 in the payer link (the default
 * prefix is the host the display used), which only this machine can open: the display names the
 * machine's network addresses to open it at instead (or `POS_MP_LINK_PREFIX` says where).
 */
import os from 'node:os';
import type { Request } from 'express';
import type { PosDevelopmentHelp } from '@kit/shared/api/pos';
import { isLoopbackUrl } from '../../listen-addresses';

export { isLoopbackUrl };

/** IPv4 addresses of this machine's network interfaces, loopback excluded. */
export function lanAddresses(interfaces = os.networkInterfaces()): string[] {
  return Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((i) => i.family === 'IPv4' && !i.internal)
    .map((i) => i.address);
}

export function developmentHelp(req: Request, link: string, basePath: string, addresses: string[] = lanAddresses()): PosDevelopmentHelp {
  const port = /:(\d+)$/.exec(req.get('host') ?? '')?.[1];
  return {
    loopbackLink: isLoopbackUrl(link),
    lanDisplayUrls: addresses.map((a) => `${req.protocol}://${a}${port ? `:${port}` : ''}${basePath}/pos/`),
  };
}
