// Measuring against the machine itself: every wall time is reported with `node -e 0` measured
// in the same run (interleaved with the cases, so a busy machine slows both alike), and peak RSS
// comes from a separate run with a tiny --import hook. Results are also appended as JSON lines
// to $BENCH_RESULTS, from which run-all.mjs writes bench/results.md.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const RSS_REPORTER = join(ROOT, 'bench/rss-reporter.mjs');
export const BARE = { label: 'node -e 0', args: ['-e', '0'] };

function runOnce(args, env, node = process.execPath) {
  const started = process.hrtime.bigint();
  const r = spawnSync(node, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** Peak RSS (MB) of one run of `node <args>` (`node`: another Node's executable). */
export function peakRssMb(args, env, node = process.execPath) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-rss-'));
  const file = join(dir, 'rss');
  try {
    const r = spawnSync(node, ['--import', RSS_REPORTER, ...args], { env: { ...env, BENCH_RSS_FILE: file }, stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return Number(readFileSync(file, 'utf8')) / 1024;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Runs `node -e 0` and each case `n` times, round-robin (one warm-up round first), and returns
 * for each its median ms, its ratio to node's median, its time over node's (`overMs`), and its
 * peak RSS (not for a case with `noRss`: a process started from a snapshot blob runs no --import
 * hook). `node`: the Node that runs them all, `node -e 0` included (default: this one).
 */
export function interleaved(cases, env, n = Number(process.env.BENCH_RUNS ?? 15), { node = process.execPath } = {}) {
  const all = [BARE, ...cases];
  const times = all.map(() => []);
  for (const c of all) runOnce(c.args, { ...env, ...c.env }, node); // warm the file cache (and svc's code cache)
  for (let i = 0; i < n; i++) all.forEach((c, j) => times[j].push(runOnce(c.args, { ...env, ...c.env }, node)));
  const bare = median(times[0]);
  return all.map((c, j) => ({ label: c.label, ms: median(times[j]), ratio: median(times[j]) / bare, overMs: median(times[j]) - bare, rssMb: c.noRss ? NaN : peakRssMb(c.args, { ...env, ...c.env }, node), aim: c.aim }));
}

export const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

/**
 * Prints rows as an aligned table, and records them for results.md under `section`. A row with
 * `met` (a boolean) is one of the aims run-all.mjs sums up (bench/aims.mjs); it says its `figure`
 * and its `reference` measured in the same run.
 */
export function report(section, rows, note = '') {
  console.log(`${section}${note ? ` (${note})` : ''}:`);
  const width = Math.max(...rows.map((r) => r.label.length));
  for (const r of rows) {
    const parts = [r.label.padEnd(width)];
    if (r.ms !== undefined) parts.push(`${fmt(r.ms).padStart(7)} ms`);
    if (r.ratio !== undefined) parts.push(`${fmt(r.ratio, 2).padStart(5)}x node`);
    if (r.rssMb !== undefined) parts.push(`${fmt(r.rssMb, 0).padStart(4)} MB peak`);
    if (r.value !== undefined) parts.push(String(r.value));
    if (r.aim) parts.push(`(aim ${r.aim}${r.met === undefined ? '' : r.met ? ': met' : ': NOT MET'})`);
    console.log(`  ${parts.join('  ')}`);
  }
  if (process.env.BENCH_RESULTS) appendFileSync(process.env.BENCH_RESULTS, `${JSON.stringify({ section, note, rows })}\n`);
}
