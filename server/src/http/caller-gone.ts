/**
 * Tells a held call (4.2 waitForFinish) that its caller hung up, so the hold ends at once. An
 * AbortController would do, but each AbortSignal gets a hidden class of its own in V8 and keeps a
 * listener map, which a held call pays in heap (docs/performance.md, "What the speed tricks buy").
 */
import type { Response } from 'express';
import type { WaitSignal } from '../orders/order-events';

export class CallerGone implements WaitSignal {
  aborted = false;
  private listener?: () => void;

  addEventListener(_type: 'abort', listener: () => void): void {
    this.listener = listener;
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.listener === listener) this.listener = undefined;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  }
}

/** One listener function for every response: no closure per held call. */
function onClose(this: Response): void {
  if (!this.writableFinished) this.locals.gone?.abort();
}

/** A signal that aborts when the response's connection closes before the answer was sent. */
export function callerGone(res: Response): CallerGone {
  const gone = new CallerGone();
  res.locals.gone = gone;
  res.on('close', onClose);
  return gone;
}
