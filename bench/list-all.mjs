// BENCH_TRANSFERS transfers (100,000 by default) in the sandbox, then `svc transfer ls --all` as
// --json (one array), --jsonl (one object per line) and --json --decrypt (an X25519 operation
// per row, on worker threads past the first 1,000 rows): wall time and peak RSS of the svc
// process for each, interleaved over BENCH_LIST_RUNS rounds (medians) with two references from
// the same rounds: `node -e 0`, and a bare undici client paging the same sandbox and writing the
// same bytes as --json (bench/list-reference.mjs). Every run's output is counted (and --decrypt's
// amounts checked). Also reports how fast the sandbox accepted the POSTs, and for each case the
// CPU time per page (100 rows) of the listing process (every thread: the --decrypt workers too)
// and of the sandbox answering it (from /proc on Linux): CPU, unlike wall time, hardly moves with
// what else the machine runs.
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

/** CPU ms (user + system) the sandbox process has used so far; NaN where /proc cannot tell. */
function sandboxCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime (fields 14 and 15 of the whole line) are in clock ticks, 100 a second on Linux.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** One run: wall ms, peak RSS MB and CPU ms (the --import hook), the sandbox's CPU ms meanwhile, and the rows printed. */
function run(c, env, sandboxPid) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-rss-'));
  try {
    const sandboxBefore = sandboxCpuMs(sandboxPid);
    const started = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ['--import', RSS_REPORTER, ...c.args], {
      env: { ...env, BENCH_RSS_FILE: join(dir, 'rss'), BENCH_CPU_FILE: join(dir, 'cpu') }, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1024 * 1024 * 1024,
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const sandboxMs = sandboxCpuMs(sandboxPid) - sandboxBefore;
    if (r.status !== 0) throw new Error(`${c.label} exited ${r.status}: ${r.stderr}`);
    const list = c.rows ? c.rows(r.stdout.toString('utf8')) : [];
    if (c.rows && list.length !== COUNT) throw new Error(`${c.label}: ${list.length} rows of ${COUNT}`);
    const bad = c.check ? list.filter((row) => !c.check(row)).length : 0;
    if (bad) throw new Error(`${c.label}: ${bad} rows failed the check`);
    const cpu = JSON.parse(readFileSync(join(dir, 'cpu'), 'utf8'));
    return { ms, rssMb: Number(readFileSync(join(dir, 'rss'), 'utf8')) / 1024, cpuMs: (cpu.user + cpu.system) / 1000, sandboxMs };
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
  const results = CASES.map(() => ({ ms: [], rss: [], cpu: [], sandbox: [] }));
  CASES.forEach((c) => run(c, sandbox.env, sandbox.pid)); // warm-up round (file cache, the sandbox's JIT)
  for (let i = 0; i < ROUNDS; i++) {
    CASES.forEach((c, j) => {
      const r = run(c, sandbox.env, sandbox.pid);
      results[j].ms.push(r.ms);
      results[j].rss.push(r.rssMb);
      results[j].cpu.push(r.cpuMs);
      results[j].sandbox.push(r.sandboxMs);
    });
    console.log(`  round ${i + 1}/${ROUNDS}: ${CASES.map((c, j) => `${fmt(results[j].ms.at(-1) / 1000, 2)} s ${fmt(results[j].rss.at(-1), 0)} MB`).join(", ")}`);
  }
  // CPU per page: what each side spends on one page of 100 rows (medians over the rounds).
  const pages = Math.ceil(COUNT / 100);
  CASES.forEach((c, j) => {
    if (!c.rows) return;
    console.log(`  CPU per page, ${c.label}: ${fmt(median(results[j].cpu) / pages, 2)} ms listing (start-up included), ${fmt(median(results[j].sandbox) / pages, 2)} ms sandbox`);
  });
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
