// BENCH_TRANSFERS transfers (100,000 by default) in the sandbox, then `svc transfer ls --all` as
// --json (one array), --jsonl (one object per line) and --json --decrypt (an X25519 operation
// per row, on worker threads past the first 1,000 rows): wall time and peak RSS of the svc
// process for each, interleaved over BENCH_LIST_RUNS rounds (medians) with two references from
// the same rounds: `node -e 0`, and a bare undici client paging the same sandbox and writing the
// same bytes as --json (bench/list-reference.mjs). Every run's output is counted (and --decrypt's
// amounts checked). Also reports how fast the sandbox accepted the POSTs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt, postTransfers, ROOT, startSandbox } from './lib.mjs';
import { report } from './measure.mjs';

const COUNT = Number(process.env.BENCH_TRANSFERS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_LIST_RUNS ?? 5);
const CONCURRENCY = 64;
const RSS_REPORTER = join(ROOT, 'bench/rss-reporter.mjs');

const arrayRows = (out) => JSON.parse(out);
const lineRows = (out) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
/** Each case: its node arguments, how to count (and spot-check) the rows it printed, its aim. */
const CASES = [
  { label: 'node -e 0', args: ['-e', '0'] },
  { label: 'bare undici client: the same pages, the same bytes', args: ['--liftoff-only', join(ROOT, 'bench/list-reference.mjs')], rows: arrayRows },
  { label: 'svc --json transfer ls --all', args: [BIN, '--json', 'transfer', 'ls', '--all'], rows: arrayRows, aim: '<= 1.0 s, <= 80 MB', limits: { ms: 1000, mb: 80 } },
  { label: 'svc transfer ls --all --jsonl', args: [BIN, 'transfer', 'ls', '--all', '--jsonl'], rows: lineRows },
  { label: 'svc --json transfer ls --all --decrypt', args: [BIN, '--json', 'transfer', 'ls', '--all', '--decrypt'], rows: arrayRows, check: (row) => row.amount === '0.01', aim: '<= 3 s (both cores), <= 120 MB', limits: { ms: 3000, mb: 120 } },
];

/** One run: wall ms, peak RSS MB (the --import hook), and the rows printed. */
function run(c, env) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-rss-'));
  try {
    const started = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ['--import', RSS_REPORTER, ...c.args], {
      env: { ...env, BENCH_RSS_FILE: join(dir, 'rss') }, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1024 * 1024 * 1024,
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (r.status !== 0) throw new Error(`${c.label} exited ${r.status}: ${r.stderr}`);
    const list = c.rows ? c.rows(r.stdout.toString('utf8')) : [];
    if (c.rows && list.length !== COUNT) throw new Error(`${c.label}: ${list.length} rows of ${COUNT}`);
    const bad = c.check ? list.filter((row) => !c.check(row)).length : 0;
    if (bad) throw new Error(`${c.label}: ${bad} rows failed the check`);
    return { ms, rssMb: Number(readFileSync(join(dir, 'rss'), 'utf8')) / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const sandbox = await startSandbox(['--block-time', '1ms', ...(process.env.BENCH_SANDBOX_VERBOSE ? ['--verbose'] : [])]);
try {
  const { seconds, perSecond, failures } = await postTransfers(sandbox, COUNT, CONCURRENCY);
  console.log(`sandbox: ${COUNT} POST /v1/transfers in ${fmt(seconds, 2)} s = ${fmt(perSecond, 0)} req/s (${failures} failed), ${CONCURRENCY} connections`);
  const loadBefore = load();
  const results = CASES.map(() => ({ ms: [], rss: [] }));
  CASES.forEach((c) => run(c, sandbox.env)); // warm-up round (file cache, the sandbox's JIT)
  for (let i = 0; i < ROUNDS; i++) {
    CASES.forEach((c, j) => {
      const r = run(c, sandbox.env);
      results[j].ms.push(r.ms);
      results[j].rss.push(r.rssMb);
    });
    console.log(`  round ${i + 1}/${ROUNDS}: ${CASES.map((c, j) => `${fmt(results[j].ms.at(-1) / 1000, 2)} s ${fmt(results[j].rss.at(-1), 0)} MB`).join(", ")}`);
  }
  const node = median(results[0].ms);
  const bare = median(results[1].ms);
  const rows = CASES.map((c, j) => {
    const ms = median(results[j].ms);
    return {
      label: c.label, ms, ratio: ms / node, rssMb: Math.max(...results[j].rss),
      ...(j >= 1 ? { value: `${COUNT} rows${j > 1 ? `; ${fmt(ms / bare, 2)}x the bare client` : ''}` } : {}),
      ...(c.aim ? { aim: c.aim } : {}),
      // An aim says met or not (bench/aims.mjs), beside the references of the same rounds.
      ...(c.limits ? { figure: `${fmt(ms / 1000, 2)} s, ${fmt(Math.max(...results[j].rss), 0)} MB`, reference: `bare client ${fmt(bare / 1000, 2)} s; node -e 0 ${fmt(node, 0)} ms`, met: ms <= c.limits.ms && Math.max(...results[j].rss) <= c.limits.mb } : {}),
    };
  });
  const note = `medians of ${ROUNDS} interleaved rounds (peak RSS: the highest); load average ${loadBefore} before, ${load()} after; the sandbox took the ${COUNT.toLocaleString('en')} POSTs at ${fmt(perSecond, 0)} req/s`;
  report(`listing ${COUNT.toLocaleString('en')} transfers`, rows, note);
} finally {
  await sandbox.stop();
}
