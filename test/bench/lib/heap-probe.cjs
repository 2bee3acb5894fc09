/*
 * Preloaded into the service only when BENCH_HEAP_DIR is set (`node --require` this file): on
 * SIGUSR2 it writes a heap snapshot into that folder, under a temporary name renamed when done,
 * so the bench can see where a held call's memory goes. Not part of a normal run.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');

const dir = process.env.BENCH_HEAP_DIR;
if (dir && process.argv[1] && /server[\\/]src[\\/]main\.ts$/.test(process.argv[1])) {
  let n = 0;
  process.on('SIGUSR2', () => {
    const file = path.join(dir, `${process.pid}-${n++}.heapsnapshot`);
    v8.writeHeapSnapshot(`${file}.tmp`);
    fs.renameSync(`${file}.tmp`, file);
  });
}
