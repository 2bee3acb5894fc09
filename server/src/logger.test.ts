/** The bounded buffer in front of stdout, fed to a real stream whose reader stops and resumes. */
import { PassThrough } from 'node:stream';
import { BoundedLogSink, createLogger, flushLogs, logSinkOf } from './logger';

const line = (i: number) => `${JSON.stringify({ i, pad: 'x'.repeat(40) })}\n`;
const tick = () => new Promise((r) => setImmediate(r));

describe('BoundedLogSink', () => {
  it('holds at most its limit while nobody reads, drops and counts the rest, and reports once there is room', async () => {
    const stream = new PassThrough({ highWaterMark: 256 });
    const sink = new BoundedLogSink(stream, 2048);
    for (let i = 0; i < 200; i++) {
      sink.write(line(i));
      if (i % 10 === 0) await tick();
    }
    await tick();
    expect(sink.bufferedBytes).toBeLessThanOrEqual(2048);
    expect(sink.droppedTotal).toBeGreaterThan(100);
    // Still stalled: nothing to report yet, and a flush gives up at its deadline.
    expect(sink.takeDropped()).toBe(0);
    expect(await sink.flush(50)).toBe(false);

    const read: string[] = [];
    stream.on('data', (d) => read.push(String(d)));
    expect(await sink.flush(1000)).toBe(true);
    const lines = read.join('').trim().split('\n');
    expect(lines.length + sink.droppedTotal).toBe(200);
    // Whole lines only, in order.
    expect(lines.map((l) => JSON.parse(l).i)).toEqual([...lines.keys()]);
    expect(sink.takeDropped()).toBe(sink.droppedTotal);
    expect(sink.takeDropped()).toBe(0);
  });

  it('stops writing after the stream fails (a closed stdout) instead of throwing', async () => {
    const stream = new PassThrough();
    const sink = new BoundedLogSink(stream, 4096);
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(() => sink.write(line(1))).not.toThrow();
    expect(await sink.flush(10)).toBe(true);
  });

  it('is what createLogger writes through, with the given bound', async () => {
    const stream = new PassThrough();
    const log = createLogger('info', { target: stream, bufferBytes: 8192 });
    const read: string[] = [];
    stream.on('data', (d) => read.push(String(d)));
    log.info({ loginToken: 'secret-token', body: { parameters: { appAuthToken: 'alipay-token', notifyCallbackUrl: 'https://m.example/cb' } } }, 'hello');
    expect(logSinkOf(log)?.limitBytes).toBe(8192);
    expect(await flushLogs(log, 1000)).toBe(true);
    const entry = JSON.parse(read.join(''));
    expect(entry).toMatchObject({
      msg: 'hello',
      svc: 'kit',
      loginToken: '[redacted]',
      body: { parameters: { appAuthToken: '[redacted]', notifyCallbackUrl: 'https://m.example/cb' } },
    });
  });
});

describe('createLogger on a terminal', () => {
  const capture = (isTTY: boolean) => {
    const stream = Object.assign(new PassThrough(), { isTTY });
    const read: string[] = [];
    stream.on('data', (d) => read.push(String(d)));
    return { stream, text: () => read.join('') };
  };

  it('writes readable lines when stdout is a terminal, secrets still redacted', async () => {
    const out = capture(true);
    const log = createLogger('info', { target: out.stream });
    log.warn({ loginToken: 'secret-token', prepayId: 'P1' }, 'callback undeliverable');
    expect(await flushLogs(log, 1000)).toBe(true);
    // eslint-disable-next-line no-control-regex -- taking the terminal's colour codes (ESC [ … m) out is the point
    const text = out.text().replace(/\u001b\[[0-9;]*m/g, '');
    expect(() => JSON.parse(text)).toThrow();
    expect(text).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] WARN: callback undeliverable/);
    expect(text).toContain('"prepayId":"P1"');
    expect(text).not.toContain('secret-token');
    expect(text.trim().split('\n')).toHaveLength(1);
  });

  it('writes JSON lines otherwise (a pipe, a file, a log collector)', async () => {
    const out = capture(false);
    const log = createLogger('info', { target: out.stream });
    log.info({ prepayId: 'P1' }, 'hello');
    expect(await flushLogs(log, 1000)).toBe(true);
    expect(JSON.parse(out.text())).toMatchObject({ level: 30, msg: 'hello', prepayId: 'P1' });
  });
});
