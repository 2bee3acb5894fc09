import { KitApiError, KitNetworkError } from './errors';
import { waitLoop } from './long-poll';
import type { PrepayDetail } from './api/prepay';

const detail = (status: PrepayDetail['status']): PrepayDetail => ({
  version: 1,
  status,
  merchantDisplayName: 'Shop',
  totalAmount: '1.00',
  disconut: '0.00',
  createTime: new Date(0).toISOString(),
});

function script(steps: Array<PrepayDetail | Error>) {
  const calls: number[] = [];
  const fn = async () => {
    calls.push(Date.now());
    const step = steps.shift();
    if (!step) throw new Error('script ran out');
    if (step instanceof Error) throw step;
    return step;
  };
  return { fn, calls };
}

describe('waitLoop (the client loop of 4.2)', () => {
  it('calls again while the order is active and returns when it is finish', async () => {
    const { fn, calls } = script([detail('active'), detail('active'), detail('finish')]);
    const seen: string[] = [];
    await expect(waitLoop(fn, { onUpdate: (d) => seen.push(d.status) })).resolves.toMatchObject({ status: 'finish' });
    expect(calls).toHaveLength(3);
    expect(seen).toEqual(['active', 'active', 'finish']);
  });

  it('retries at once after a network error or a 5xx, with no delay before the first retry', async () => {
    const { fn, calls } = script([new KitNetworkError('down'), detail('active'), new KitApiError(503, { status: 'fail' }), detail('finish')]);
    const errors: unknown[] = [];
    await expect(waitLoop(fn, { onError: (e) => errors.push(e) })).resolves.toMatchObject({ status: 'finish' });
    expect(errors).toHaveLength(2);
    expect(calls[1] - calls[0]).toBeLessThan(50);
  });

  it('returns an order that left active another way (expired, refunded) so the caller can show it', async () => {
    await expect(waitLoop(script([detail('cancel')]).fn)).resolves.toMatchObject({ status: 'cancel' });
    await expect(waitLoop(script([detail('refunded')]).fn)).resolves.toMatchObject({ status: 'refunded' });
  });

  it('stops on a 4xx answer (unknown order, login no longer valid)', async () => {
    await expect(waitLoop(script([new KitApiError(404, { status: 'fail', error: 'not_found' })]).fn)).rejects.toMatchObject({ httpStatus: 404 });
    await expect(waitLoop(script([new KitApiError(401, { status: 'fail' })]).fn)).rejects.toMatchObject({ isUnauthorized: true });
  });

  it('spaces out only a run of back-to-back failures, so a dead network is not a busy loop', async () => {
    const failures = Array.from({ length: 4 }, () => new KitNetworkError('down'));
    const { fn, calls } = script([...failures, detail('finish')]);
    await waitLoop(fn);
    expect(calls[1] - calls[0]).toBeLessThan(50);
    expect(calls[4] - calls[3]).toBeGreaterThanOrEqual(350);
  });

  it('stops when aborted', async () => {
    const ctl = new AbortController();
    const fn = async () => {
      ctl.abort(new Error('left the page'));
      return detail('active');
    };
    await expect(waitLoop(fn, { signal: ctl.signal })).rejects.toThrow('left the page');
  });
});
