// A setup file for bench/suite-files.mjs (never part of `npm test`): appends, for each test file,
// the CPU of its worker process (threads included) and of the children it reaped, from before the
// file is imported (a setup file runs first) to its last afterAll, to $SVC_FILE_CPU_LOG.
// Linux only (/proc). A process nobody reaps (a tmux server and what runs in it) is not counted.
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';

const TICKS = 100; // USER_HZ on Linux
const cpu = () => {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  return { self: (f[11] + f[12]) / TICKS, children: (f[13] + f[14]) / TICKS };
};
const start = cpu();
const started = performance.now();
let file = '?';
// vitest: a hook's first parameter must be a destructuring pattern; the suite (here the file) comes second.
beforeAll(({}, suite) => {
  file = suite?.file?.filepath ?? suite?.filepath ?? '?';
});
afterAll(() => {
  const end = cpu();
  const row = {
    file,
    self: +(end.self - start.self).toFixed(2),
    children: +(end.children - start.children).toFixed(2),
    wallS: +((performance.now() - started) / 1000).toFixed(1),
    load: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
  };
  if (process.env.SVC_FILE_CPU_LOG) appendFileSync(process.env.SVC_FILE_CPU_LOG, `${JSON.stringify(row)}\n`);
});
