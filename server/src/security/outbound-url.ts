/**
 * Where the service may send a request on a merchant's behalf (callbacks, and every other URL a
 * merchant gives it: profit-sharing, reconciliation). With `CALLBACK_ALLOW_PRIVATE` off, nothing
 * inside the operator's own network: no loopback, private, link-local, unique-local, unspecified,
 * shared (CGNAT), multicast or reserved address, however it is written (`127.1`, `2130706433`,
 * `0x7f.1`, `[::1]`, `[::ffff:127.0.0.1]`) or whatever name resolves to it (`localhost`,
 * `metadata.google.internal`). A URL is checked when it is set, and the address actually connected
 * to is checked again at every call (a lookup hook on the HTTP agents), so a name that resolves
 * elsewhere later (DNS rebinding) gains nothing.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { KitError } from '@kit/shared';

const BLOCKED = new net.BlockList();
for (const [addr, bits] of [
  ['0.0.0.0', 8], // unspecified, "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  BLOCKED.addSubnet(addr, bits, 'ipv4');
for (const [addr, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed inside networks)
  ['fc00::', 7], // unique-local
  ['ff00::', 8], // multicast
] as const)
  BLOCKED.addSubnet(addr, bits, 'ipv6');

/** Names that are the operator's own whatever they resolve to here. */
const BLOCKED_NAMES = /^(localhost|metadata|metadata\.google\.internal)$|\.(localhost|internal)$/i;

/** The IPv4 address an IPv6 address carries (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`), if any. */
function embeddedIpv4(ip: string): string | undefined {
  const groups = expandIpv6(ip);
  if (!groups) return undefined;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (!mapped && !nat64) return undefined;
  return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part allowed). */
function expandIpv6(ip: string): number[] | undefined {
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const b = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parts = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = parts(head);
  const t = parts(tail);
  const groups = tail === undefined ? h : [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** Whether an IP address (v4 or v6, as text) lies inside the operator's own network. */
export function isPrivateAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return BLOCKED.check(ip, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(ip);
  return v4 ? BLOCKED.check(v4, 'ipv4') : BLOCKED.check(ip, 'ipv6');
}

/** The host of a URL as an address or a name (the URL parser already turned `127.1` and `2130706433` into `127.0.0.1`). */
function hostOf(url: URL): string {
  // `localhost.` is `localhost`: a trailing dot only makes a name absolute.
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
  constructor(host: string, address: string) {
    super(
      `${host}${host === address ? '' : ` (${address})`} is inside the operator's network (loopback, private, link-local, unique-local or unspecified); CALLBACK_ALLOW_PRIVATE is off`,
    );
    this.name = 'PrivateAddressError';
  }
}

type LookupAll = (hostname: string, options: dns.LookupAllOptions) => Promise<dns.LookupAddress[]>;

export class OutboundPolicy {
  /** The agents outgoing calls use: with the lookup hook when private addresses are refused. */
  readonly agents: { 'http:': http.Agent; 'https:': https.Agent };

  constructor(
    readonly allowPrivate: boolean,
    private readonly resolve: LookupAll = (host, options) => dns.promises.lookup(host, options),
  ) {
    const lookup = allowPrivate ? undefined : this.guardedLookup();
    this.agents = {
      'http:': new http.Agent({ keepAlive: true, ...(lookup ? { lookup } : {}) }),
      'https:': new https.Agent({ keepAlive: true, ...(lookup ? { lookup } : {}) }),
    };
  }

  /**
   * Refuses (400 `url_not_public`, naming `field`) a URL whose host is, or resolves to, a private
   * address. A name that does not resolve now is let through: the call checks again.
   */
  async checkUrl(text: string, field: string): Promise<void> {
    if (this.allowPrivate) return;
    const url = new URL(text);
    const host = hostOf(url);
    const refuse = (address: string) => new KitError('url_not_public', `${field}: ${new PrivateAddressError(host, address).message}`);
    if (net.isIP(host)) {
      if (isPrivateAddress(host)) throw refuse(host);
      return;
    }
    if (BLOCKED_NAMES.test(host)) throw refuse(host);
    let addresses: dns.LookupAddress[];
    try {
      addresses = await this.resolve(host, { all: true });
    } catch {
      return;
    }
    const inside = addresses.find((a) => isPrivateAddress(a.address));
    if (inside) throw refuse(inside.address);
  }

  /** For a call about to be made: throws when its host is a private address written as such (no lookup happens for those; names meet the agents' hook). */
  checkLiteral(url: URL): void {
    if (this.allowPrivate) return;
    const host = hostOf(url);
    if (net.isIP(host) && isPrivateAddress(host)) throw new PrivateAddressError(host, host);
  }

  /** `lookup` for net.connect: resolves as usual, then refuses if any address it would connect to is private. */
  private guardedLookup(): net.LookupFunction {
    return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
      this.resolve(hostname, { ...options, all: true }).then(
        (addresses) => {
          const inside = addresses.find((a) => isPrivateAddress(a.address));
          if (inside) return callback(new PrivateAddressError(hostname, inside.address));
          if (options.all) return callback(null, addresses);
          callback(null, addresses[0].address, addresses[0].family);
        },
        (err) => callback(err),
      );
    }) as net.LookupFunction;
  }
}
