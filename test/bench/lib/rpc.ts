/**
 * Load processes: each driver is a child Node process (`drivers/<name>.ts`, run through tsx) that
 * serves a few named operations over the IPC channel. Advanced serialization carries typed arrays
 * (latency samples) as they are. A driver exits when the bench disconnects from it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

type Handler = (args: never) => unknown;
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/** Child side: answers `{id, op, args}` messages with the handler's result. */
export function serve(handlers: Record<string, Handler>): void {
  process.on('message', (msg: { id: number; op: string; args: unknown }) => {
    const handler = handlers[msg.op];
    const reply = (r: Reply) => process.send?.(r);
    if (!handler) return reply({ id: msg.id, ok: false, error: `unknown operation ${msg.op}` });
    Promise.resolve()
      .then(() => (handler as (a: unknown) => unknown)(msg.args))
      .then(
        (value) => reply({ id: msg.id, ok: true, value }),
        (e) => reply({ id: msg.id, ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
      );
  });
  process.on('disconnect', () => process.exit(0));
}

/** Parent side: one running driver process. */
export class Driver {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private exited = false;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    child.on('message', (r: Reply) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      if (r.ok) p.resolve(r.value);
      else p.reject(new Error(`${name}: ${r.error}`));
    });
    child.on('exit', (code, signal) => {
      this.exited = true;
      for (const p of this.pending.values()) p.reject(new Error(`driver ${name} exited (${signal ?? code})`));
      this.pending.clear();
    });
  }

  static start(name: string): Driver {
    const child = fork(path.join(__dirname, '..', 'drivers', `${name}.ts`), [], {
      execArgv: ['--import', 'tsx'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Driver(name, child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  call<T>(op: string, args?: unknown): Promise<T> {
    if (this.exited) return Promise.reject(new Error(`driver ${this.name} is not running`));
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ id, op, args });
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.disconnect();
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(kill);
  }
}

/** Wall-clock time with sub-millisecond resolution, comparable between the bench's processes. */
export const now = (): number => performance.timeOrigin + performance.now();

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
