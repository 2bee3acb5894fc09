/**
 * Where memory went between two V8 heap snapshots: retained objects summed by kind and
 * constructor name (self sizes), the difference divided per unit (e.g. per held call).
 */
import fs from 'node:fs';

export interface HeapGroup {
  name: string;
  count: number;
  bytes: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Sums self sizes by `type:name` (strings and numbers in one group each). */
export function groupHeap(snapshot: Snapshot): Map<string, HeapGroup> {
  const meta = snapshot.snapshot.meta;
  const width = meta.node_fields.length;
  const typeAt = meta.node_fields.indexOf('type');
  const nameAt = meta.node_fields.indexOf('name');
  const sizeAt = meta.node_fields.indexOf('self_size');
  const types = meta.node_types[0];
  const groups = new Map<string, HeapGroup>();
  const { nodes, strings } = snapshot;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]];
    const name = /string|number|code/.test(type) ? `(${type})` : `${type === 'object' ? '' : `(${type}) `}${strings[nodes[i + nameAt]].slice(0, 60)}`;
    let g = groups.get(name);
    if (!g) groups.set(name, (g = { name, count: 0, bytes: 0 }));
    g.count++;
    g.bytes += nodes[i + sizeAt];
  }
  return groups;
}

export function readHeap(file: string): Map<string, HeapGroup> {
  return groupHeap(JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot);
}

/** Per-unit growth from `before` to `after`, largest first. */
export function heapGrowth(before: Map<string, HeapGroup>, after: Map<string, HeapGroup>, units: number): { perUnit: number; groups: HeapGroup[] } {
  const groups: HeapGroup[] = [];
  let total = 0;
  for (const [name, a] of after) {
    const b = before.get(name) ?? { count: 0, bytes: 0 };
    total += a.bytes - b.bytes;
    groups.push({ name, count: (a.count - b.count) / units, bytes: (a.bytes - b.bytes) / units });
  }
  for (const [name, b] of before) if (!after.has(name)) total -= b.bytes;
  return { perUnit: total / units, groups: groups.sort((x, y) => y.bytes - x.bytes) };
}
