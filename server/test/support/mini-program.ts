/** Shared by the mini-program code tests: a cashier of the POS router, reading the platform's code and the calls made for it. */
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { PageClient } from './page-client';
import type { ProxiedCall } from './platform-proxy';

/** The POS router as a display uses it: logs in, creates orders, reads their mini-program codes. */
export class Cashier extends PageClient {
  constructor(private readonly kitUrl: string) {
    super(`${kitUrl}/pos/api`);
  }

  async login(userId: string, pw: string): Promise<void> {
    const { status } = await this.call('POST', '/login', { userId, pw });
    if (status !== 200) throw new Error(`POS login answered ${status}`);
  }

  async order(amount = '1.00'): Promise<string> {
    const { status, body } = await this.call('POST', '/orders', { amount });
    if (status !== 200) throw new Error(`POS order answered ${status}: ${JSON.stringify(body)}`);
    return body.order.prepayId as string;
  }

  /** `GET /pos/api/orders/<id>/mini-program-code`: the image, or the JSON failure. */
  async code(prepayId: string): Promise<{ status: number; contentType: string; image: Buffer; body?: any }> {
    const res = await fetch(`${this.kitUrl}/pos/api/orders/${prepayId}/mini-program-code`, { headers: this.cookie ? { cookie: this.cookie } : {} });
    const image = Buffer.from(await res.arrayBuffer());
    const contentType = res.headers.get('content-type') ?? '';
    return { status: res.status, contentType, image, body: contentType.startsWith('application/json') ? JSON.parse(image.toString('utf8')) : undefined };
  }
}

/** The content of the one QR code in a PNG. */
export function decodePng(png: Buffer): string {
  const img = PNG.sync.read(png);
  const code = jsQR(new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length), img.width, img.height);
  if (!code) throw new Error(`no QR code found in a ${img.width}×${img.height} image`);
  return code.data;
}

/** The payer link the sandbox's code leads to. */
export const payerLink = (kitUrl: string, prepayId: string) => `${kitUrl}/mp/#/pages/pay/index?scene=${encodeURIComponent(`sm.pay?prepayid=${prepayId}`)}`;

/** The calls of one API of the platform, with their JSON bodies. */
export function callsOf(calls: readonly ProxiedCall[], api: 'stable_token' | 'getwxacodeunlimit'): Array<ProxiedCall & { json: any }> {
  return calls.filter((c) => c.url.includes(`/${api}`)).map((c) => ({ ...c, json: c.body ? JSON.parse(c.body) : undefined }));
}

/** A counter of `/metrics`, 0 when absent. */
export async function metric(kitUrl: string, series: string): Promise<number> {
  const text = await (await fetch(`${kitUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
