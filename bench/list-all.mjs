// BENCH_TRANSFERS transfers (100,000 by default) in the sandbox, then `svc transfer ls --all` as
// --json (one array), --jsonl (one object per line) and --json --decrypt (an X25519 operation
// per row): wall time and peak RSS of the svc process for each. Also reports how fast the
// sandbox accepted the POSTs (requests per second).
import { BIN, fmt, postTransfers, startSandbox, timeRun } from './lib.mjs';
import { report } from './measure.mjs';

const COUNT = Number(process.env.BENCH_TRANSFERS ?? 100_000);
const CONCURRENCY = 64;

/** Each variant, and how to count (and spot-check) the rows it printed. */
const VARIANTS = [
  { args: ['--json', 'transfer', 'ls', '--all'], rows: (out) => JSON.parse(out), aim: '<= 5 s, <= 100 MB' },
  { args: ['transfer', 'ls', '--all', '--jsonl'], rows: (out) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l)) },
  { args: ['--json', 'transfer', 'ls', '--all', '--decrypt'], rows: (out) => JSON.parse(out), check: (row) => row.amount === '0.01' },
];

const sandbox = await startSandbox(['--block-time', '1ms', ...(process.env.BENCH_SANDBOX_VERBOSE ? ['--verbose'] : [])]);
try {
  const { seconds, perSecond, failures } = await postTransfers(sandbox, COUNT, CONCURRENCY);
  console.log(`sandbox: ${COUNT} POST /v1/transfers in ${fmt(seconds, 2)} s = ${fmt(perSecond, 0)} req/s (${failures} failed), ${CONCURRENCY} connections`);

  const results = [];
  for (const { args, rows, check, aim } of VARIANTS) {
    const run = timeRun([BIN, ...args], sandbox.env, { stdout: 'pipe' });
    const list = rows(run.stdout.toString('utf8'));
    const bad = check ? list.filter((row) => !check(row)).length : 0;
    console.log(`svc ${args.join(' ')}: ${list.length} rows in ${fmt(run.ms / 1000, 2)} s, peak RSS ${fmt(run.rssMb)} MB${bad ? ` (${bad} rows failed the check)` : ''}`);
    results.push({ label: `svc ${args.join(' ')}`, ms: run.ms, rssMb: run.rssMb, value: `${list.length} rows${bad ? `, ${bad} failed the check` : ''}`, ...(aim ? { aim } : {}) });
  }
  report(`listing ${COUNT.toLocaleString('en')} transfers`, results, `one run each; the sandbox took the ${COUNT.toLocaleString('en')} POSTs at ${fmt(perSecond, 0)} req/s`);
} finally {
  await sandbox.stop();
}
