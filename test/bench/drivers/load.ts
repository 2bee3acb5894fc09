/**
 * Load process: autocannon against one service instance (or the bare route), requests built per
 * request by `lib/requests.ts`. Returns the count of answers, their latencies and the last
 * signature timestamp it used.
 */
import autocannon from 'autocannon';
import { serve } from '../lib/rpc';
import { requestBuilder, SignatureClock, type Creds, type RequestKind } from '../lib/requests';

export interface LoadArgs {
  url: string;
  duration: number;
  connections: number;
  request: RequestKind;
  creds?: Creds;
  clock: { from: number; step: number };
}

export interface LoadAnswer {
  answers: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Requests built (the upload kind names its items after this counter). */
  built: number;
  elapsedMs: number;
  latencies: Float64Array;
  clockLatest: number;
}

async function run(a: LoadArgs): Promise<LoadAnswer> {
  const target = new URL(a.url);
  const prefix = target.pathname.replace(/\/$/, '');
  const clock = new SignatureClock(a.clock.from, a.clock.step);
  const build = requestBuilder(a.request, a.creds ?? { appId: '', appSecret: '' }, clock);
  let built = 0;
  let latencies = new Float64Array(1 << 16);
  let answers = 0;
  let non2xx = 0;
  const started = performance.now();
  let done!: (r: autocannon.Result) => void;
  let failed!: (e: unknown) => void;
  const finished = new Promise<autocannon.Result>((resolve, reject) => ((done = resolve), (failed = reject)));
  const options = {
    url: target.origin,
    connections: a.connections,
    pipelining: 1,
    duration: a.duration,
    requests: [
      {
        setupRequest: (req: Record<string, unknown>) => {
          const r = build(built++);
          return { ...req, method: r.method, path: `${prefix}${r.path}`, body: r.body, headers: r.headers ?? {} };
        },
      },
    ],
  };
  const instance = autocannon(options as unknown as autocannon.Options, (err, result) => (err ? failed(err) : done(result)));
  instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
    if (answers === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[answers++] = responseTime;
    if (status < 200 || status > 299) non2xx++;
  });
  const result = await finished;
  return {
    answers,
    non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    built,
    elapsedMs: performance.now() - started,
    latencies: latencies.slice(0, answers),
    clockLatest: clock.latest,
  };
}

serve({ run });
