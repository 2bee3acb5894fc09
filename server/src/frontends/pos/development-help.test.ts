/** What the display says under the code in development: loopback links, and the network addresses to open it at instead. */
import type { Request } from 'express';
import { developmentHelp, isLoopbackUrl, lanAddresses } from './development-help';

const req = (host: string) => ({ protocol: 'http', get: (h: string) => (h === 'host' ? host : undefined) }) as unknown as Request;

it('knows loopback links', () => {
  for (const u of ['http://127.0.0.1:8080/mp/#/x', 'http://localhost/mp/', 'http://[::1]:8080/mp/', 'http://127.1.2.3/']) expect(isLoopbackUrl(u)).toBe(true);
  for (const u of ['http://192.168.1.20:8080/mp/', 'https://shop.example/mp/', 'not a url']) expect(isLoopbackUrl(u)).toBe(false);
});

it('lists IPv4 network addresses, not loopback or IPv6', () => {
  const base = { netmask: '', mac: '', cidr: null, scopeid: 0 };
  expect(
    lanAddresses({
      lo: [{ ...base, address: '127.0.0.1', family: 'IPv4', internal: true }],
      eth0: [
        { ...base, address: '192.168.1.20', family: 'IPv4', internal: false },
        { ...base, address: 'fe80::1', family: 'IPv6', internal: false },
      ],
    }),
  ).toEqual(['192.168.1.20']);
});

it('names the display at those addresses, on the port and base path it was reached with', () => {
  expect(developmentHelp(req('127.0.0.1:8080'), 'http://127.0.0.1:8080/kit/mp/#/x', '/kit', ['192.168.1.20'])).toEqual({
    loopbackLink: true,
    lanDisplayUrls: ['http://192.168.1.20:8080/kit/pos/'],
  });
  expect(developmentHelp(req('localhost'), 'https://m.example/mp/', '', ['10.0.0.5'])).toEqual({
    loopbackLink: false,
    lanDisplayUrls: ['http://10.0.0.5/pos/'],
  });
});
