/** The machine a run was measured on, for the table's heading. */
import fs from 'node:fs';
import os from 'node:os';

export function describeMachine(): string {
  const cpus = os.cpus();
  let model = cpus[0]?.model?.trim() || 'unknown CPU';
  try {
    model = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() || model;
  } catch {
    // not Linux: os.cpus() it is
  }
  return `${cpus.length} cores (${model}), ${Math.round(os.totalmem() / 2 ** 30)} GB memory, ${os.type()} ${os.release()}`;
}

export function loadAverage(): string {
  return os
    .loadavg()
    .slice(0, 1)
    .map((x) => x.toFixed(2))
    .join('');
}
