// CPU per test file in one `vitest run` (docs/performance-suite.md, "Where the suite's CPU goes"): each
// file's worker CPU plus the processes it spawned and reaped (bench/file-cpu-setup.mjs), the top N
// printed with the load average at its end, then the whole run's CPU from GNU time. Minutes long
// and loads both cores; not part of `npm run bench`. Usage: node bench/suite-files.mjs [N] [vitest args]
// (`npm run build` first: many files run bin/svc.js).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ROOT } from './lib.mjs';

const [n = '15', ...vitestArgs] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-files-'));
const log = join(dir, 'files.jsonl');
const times = join(dir, 'time');
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
try {
  const loadBefore = load();
  const args = [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'bench/vitest.file-cpu.config.mjs', '--reporter=dot', ...vitestArgs];
  const gnuTime = existsSync('/usr/bin/time');
  const r = gnuTime
    ? spawnSync('/usr/bin/time', ['-f', '%U %S %e', '-o', times, process.execPath, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, SVC_FILE_CPU_LOG: log } })
    : spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, SVC_FILE_CPU_LOG: log } });
  const rows = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  rows.sort((a, b) => b.self + b.children - (a.self + a.children));
  const sum = (k) => rows.reduce((s, x) => s + x[k], 0);
  console.log(`| # | file | CPU (s) | of it spawned (s) | wall (s) | load at its end |\n|---|---|---|---|---|---|`);
  rows.slice(0, Number(n)).forEach((x, i) => console.log(`| ${i + 1} | ${relative(join(ROOT, 'test'), x.file)} | ${(x.self + x.children).toFixed(1)} | ${x.children.toFixed(1)} | ${x.wallS} | ${x.load} |`));
  console.log(`\n${rows.length} files: ${(sum('self') + sum('children')).toFixed(0)} s CPU in them, ${sum('children').toFixed(0)} s of it spawned; load ${loadBefore} before, ${load()} after`);
  if (gnuTime) {
    const [user, sys, wall] = readFileSync(times, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
    console.log(`the whole run: ${wall.toFixed(0)} s wall, ${(user + sys).toFixed(0)} s CPU (user ${user.toFixed(0)} + sys ${sys.toFixed(0)}); vitest exited ${r.status}`);
  }
  if (r.status !== 0) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
