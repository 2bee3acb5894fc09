/**
 * A log reader that stops reading (a stalled collector) must cost bounded memory and must not keep
 * the service from stopping: lines beyond LOG_BUFFER_BYTES are dropped and counted, and SIGTERM
 * ends the process within SHUTDOWN_GRACE plus a few seconds. Tried with stdout as Node gives it to
 * a child (a socket) and as a shell pipeline does (a FIFO).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const LIMIT = 64 * 1024;

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** `n` GET requests over a few keep-alive connections; each one writes a log line of about `pathBytes`. */
async function load(url: string, n: number, pathBytes: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const pathPart = `/health?pad=${'x'.repeat(pathBytes)}`;
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await new Promise<void>((resolve, reject) => {
        http.get(`${url}${pathPart}`, { agent }, (res) => res.resume().on('end', resolve)).on('error', reject);
      });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  agent.destroy();
}

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

function sample(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

describe.each(['socket', 'fifo'] as const)('a stalled stdout reader (%s)', (kind) => {
  let child: ChildProcess | undefined;
  let cleanup: Array<() => void> = [];
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const c of cleanup) c();
    cleanup = [];
  });

  it('bounds the log buffer, counts dropped lines, and SIGTERM still stops the service in time', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-stall-'));
    cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    let stdout: 'pipe' | number = 'pipe';
    if (kind === 'fifo') {
      const fifo = path.join(dataDir, 'stdout.fifo');
      execFileSync('mkfifo', [fifo]);
      // A reader that holds the FIFO open and never reads it, like a stuck collector.
      const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      stdout = fs.openSync(fifo, fs.constants.O_WRONLY);
      cleanup.push(() => fs.closeSync(reader));
    }
    child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        LOG_BUFFER_BYTES: '64kb',
        SHUTDOWN_GRACE: '1s',
      },
      stdio: ['ignore', stdout, 'pipe'],
    });
    if (typeof stdout === 'number') fs.closeSync(stdout);
    // The socket case: read nothing from the start (Node stops taking data from the socket once its own small buffer is full).
    child.stdout?.pause();
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<{ code: number | null; at: number }>((resolve) => child!.on('exit', (code) => resolve({ code, at: Date.now() })));
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if (
        await fetch(`${url}/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (i > 300 || child.exitCode !== null) throw new Error(`the service did not start:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const rssBefore = rssKb(child.pid!);

    // About 4,000 lines of 2 KB: 8 MB of log, far beyond what the pipe and the 64 KB bound hold.
    await load(url, 4000, 2000);

    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(sample(metrics, 'kit_log_lines_dropped')).toBeGreaterThan(1000);
    expect(sample(metrics, 'kit_log_buffer_bytes')).toBeLessThanOrEqual(LIMIT);
    const rssAfter = rssKb(child.pid!);
    // Bounded: the 8 MB of log lines are not held (the margin is for the heap growing with the load itself).
    expect(rssAfter - rssBefore).toBeLessThan(64 * 1024);

    const sent = Date.now();
    child.kill('SIGTERM');
    const { code, at } = await exited;
    expect(code).toBe(0);
    // The promise: SHUTDOWN_GRACE (1 s) plus a few seconds (the service's own hard limit is 5 s more, and would exit 1).
    expect(at - sent).toBeLessThan(10_000);
    expect(stderr).not.toMatch(/Error/);
  }, 120_000);
});
