/**
 * Load process playing payers in the sandbox: pays scan-code orders one after another through the
 * payer API (`POST /sandbox/pay`), recording when each payment started.
 */
import { now, serve, sleep } from '../lib/rpc';

serve({
  async pay(a: { url: string; orders: Array<{ prepayId: string; codeUrl: string }>; gapMs: number }) {
    const paid: Array<[prepayId: string, at: number, ok: boolean]> = [];
    for (const o of a.orders) {
      const at = now();
      const res = await fetch(`${a.url.replace(/\/$/, '')}/sandbox/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ codeUrl: o.codeUrl }),
      });
      await res.text();
      paid.push([o.prepayId, at, res.ok]);
      await sleep(a.gapMs);
    }
    return paid;
  },
});
