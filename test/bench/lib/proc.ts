/**
 * What the bench reads about a service process from Linux's /proc: resident memory
 * (`/proc/<pid>/status`) and CPU time, user plus system, of all its threads (`/proc/<pid>/stat`).
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
  return utime + stime;
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
