/**
 * What the bench reads about a service process from Linux's /proc: resident memory
 * (`/proc/<pid>/status`) and CPU time, user plus system, of all its threads (`/proc/<pid>/stat`);
 * and, to tell where CPU goes, user and system time apart, read and write system calls
 * (`/proc/<pid>/io`) and context switches of every thread (`/proc/<pid>/task/<tid>/status`).
 */
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';

export interface Memory {
  /** Resident set size now, bytes. */
  rss: number;
  /** Highest resident set size so far, bytes. */
  peak: number;
}

/** Parses `VmRSS` and `VmHWM` of a /proc/<pid>/status text. */
export function parseStatus(text: string): Memory {
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
    if (!m) throw new Error(`/proc status has no ${key}`);
    return Number(m[1]) * 1024;
  };
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * CPU time in clock ticks (utime + stime) of a /proc/<pid>/stat line. The command name (field 2)
 * may hold spaces and parentheses, so fields are counted from the last `)`.
 */
export function parseStatTicks(text: string): number {
  const { user, system } = parseStatTimes(text);
  return user + system;
}

/** User and system CPU time in clock ticks of a /proc/<pid>/stat line. */
export function parseStatTimes(text: string): { user: number; system: number } {
  const close = text.lastIndexOf(')');
  if (close < 0) throw new Error('not a /proc stat line');
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // After the name: state is field 3, so utime (14) and stime (15) are at 11 and 12 here.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error('/proc stat line is too short');
  return { user: utime, system: stime };
}

/** A /proc file's `key: number` lines (`/proc/<pid>/io`, a thread's `status`). */
export function parseKeyNumbers(text: string, keys: readonly string[]): number[] {
  return keys.map((key) => {
    const m = new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text);
    if (!m) throw new Error(`/proc file has no ${key}`);
    return Number(m[1]);
  });
}

/** Counters of one process, all threads, since it started. */
export interface ProcCounters {
  userMs: number;
  systemMs: number;
  /** Read-like and write-like system calls (read, write, send, recv and their vector forms). */
  syscalls: number;
  /** Context switches: waits (voluntary) and preemptions (involuntary). */
  waits: number;
  preemptions: number;
}

export function readCounters(pid: number): ProcCounters {
  const { user, system } = parseStatTimes(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  const [syscr, syscw] = parseKeyNumbers(fs.readFileSync(`/proc/${pid}/io`, 'utf8'), ['syscr', 'syscw']);
  let waits = 0;
  let preemptions = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const [v, n] = parseKeyNumbers(fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'), ['voluntary_ctxt_switches', 'nonvoluntary_ctxt_switches']);
      waits += v;
      preemptions += n;
    } catch {
      // The thread ended between the listing and the read: its switches are gone with it.
    }
  }
  const ms = 1000 / clockTicks();
  return { userMs: user * ms, systemMs: system * ms, syscalls: syscr + syscw, waits, preemptions };
}

/** What `after` added to `before`, per unit (request), summed over processes. */
export function countersPer(before: readonly ProcCounters[], after: readonly ProcCounters[], units: number): ProcCounters {
  const sum = (xs: readonly ProcCounters[], k: keyof ProcCounters) => xs.reduce((s, x) => s + x[k], 0);
  const per = (k: keyof ProcCounters) => (sum(after, k) - sum(before, k)) / units;
  return { userMs: per('userMs'), systemMs: per('systemMs'), syscalls: per('syscalls'), waits: per('waits'), preemptions: per('preemptions') };
}

let ticksPerSecond: number | undefined;

/** USER_HZ (100 on every common Linux build; asked once from getconf). */
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

export function readMemory(pid: number): Memory {
  return parseStatus(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
}

/** CPU time (ms) the process has used so far, all threads. */
export function readCpuMs(pid: number): number {
  return (parseStatTicks(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')) * 1000) / clockTicks();
}
