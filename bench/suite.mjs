// The test suite's wall time against its aim (< 150 s on the 2-core machine): `vitest run` once,
// as `npm test` runs it after the build and checks. It takes minutes and loads both cores, so
// `npm run bench` runs it only with BENCH_SUITE=1 (otherwise the row says so). The figure is
// absolute, not a ratio: a run's load average (before and after) and CPU time are printed beside
// it, since other work on the machine stretches the wall time and not the CPU time.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';
import { report } from './measure.mjs';

const AIM = '< 150 s, no test dropped';
const label = 'vitest run (the whole suite)';

if (process.env.BENCH_SUITE !== '1') {
  report('test suite', [{ label, value: 'not run (set BENCH_SUITE=1: several minutes)', aim: AIM }]);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-suite-'));
  const json = join(dir, 'suite.json');
  const times = join(dir, 'time');
  const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs');
  const args = [vitest, 'run', '--reporter=dot', '--reporter=json', `--outputFile.json=${json}`];
  // CPU time of the whole tree (vitest and its workers): GNU time's user + system, when present.
  const gnuTime = existsSync('/usr/bin/time');
  const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
  const loadBefore = load();
  const started = process.hrtime.bigint();
  const r = gnuTime
    ? spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', times, process.execPath, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] })
    : spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  try {
    const results = JSON.parse(readFileSync(json, 'utf8'));
    const cpu = gnuTime ? readFileSync(times, 'utf8').trim().split(/\s+/).slice(-2).map(Number).reduce((a, b) => a + b, 0) : undefined;
    const counts = `${results.numTotalTests} tests (${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped) in ${results.testResults.length} files`;
    report('test suite', [
      {
        label,
        ms,
        value: `${(ms / 1000).toFixed(0)} s wall${cpu === undefined ? '' : `, ${cpu.toFixed(0)} s CPU`}; ${counts}; load ${loadBefore} before, ${load()} after`,
        aim: AIM,
        figure: `${(ms / 1000).toFixed(0)} s, ${results.numTotalTests} tests`,
        reference: 'none (an absolute aim)',
        met: ms < 150_000 && r.status === 0,
      },
    ], 'one run; its load average says how busy the machine was');
    if (r.status !== 0) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
