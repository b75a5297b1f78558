// 100,000 transfers in the sandbox, then `svc transfer ls --all --json`: wall time and peak RSS.
// Also reports how fast the sandbox accepted the POSTs (requests per second).
import { BIN, fmt, postTransfers, startSandbox, timeRun } from './lib.mjs';

const COUNT = Number(process.env.BENCH_TRANSFERS ?? 100_000);
const CONCURRENCY = 64;
const sandbox = await startSandbox(['--block-time', '1', ...(process.env.BENCH_SANDBOX_VERBOSE ? ['--verbose'] : [])]);
try {
  const { seconds, perSecond, failures } = await postTransfers(sandbox, COUNT, CONCURRENCY);
  console.log(`sandbox: ${COUNT} POST /v1/transfers in ${fmt(seconds, 2)} s = ${fmt(perSecond, 0)} req/s (${failures} failed), ${CONCURRENCY} connections`);

  const run = timeRun([BIN, '--json', 'transfer', 'ls', '--all'], sandbox.env, { stdout: 'pipe' });
  const rows = JSON.parse(run.stdout.toString('utf8')).length;
  console.log(`svc transfer ls --all --json: ${rows} rows in ${fmt(run.ms / 1000, 2)} s, peak RSS ${fmt(run.rssMb)} MB`);
} finally {
  await sandbox.stop();
}
