// Sandbox throughput: POST /v1/transfers over 64 keep-alive connections, each with an
// Idempotency-Key, against a sandbox in its own process. Durable (a state file, every answer
// committed first) by default; BENCH_EPHEMERAL=1 for the in-memory database.
// BENCH_BIN=/path/to/other/bin/svc.js measures another build the same way (before/after).
import { fmt, postTransfers, startSandbox } from './lib.mjs';
import { report } from './measure.mjs';

const COUNT = Number(process.env.BENCH_TRANSFERS ?? 20_000);
const durable = !process.env.BENCH_EPHEMERAL;
const sandbox = await startSandbox(['--block-time', '1ms', '--quiet'], { durable, bin: process.env.BENCH_BIN });
try {
  const { seconds, perSecond, failures } = await postTransfers(sandbox, COUNT);
  console.log(`sandbox (${durable ? 'durable state file' : 'ephemeral'}${process.env.BENCH_BIN ? `, ${process.env.BENCH_BIN}` : ''}): ${COUNT} POST /v1/transfers in ${fmt(seconds, 2)} s = ${fmt(perSecond, 0)} req/s (${failures} failed), 64 connections`);
  report('sandbox throughput', [{ label: `${COUNT} POST /v1/transfers, ${durable ? 'durable state file' : 'in memory'}, 64 keep-alive connections`, value: `${fmt(perSecond, 0)} req/s, ${failures} failed`, aim: '>= 3,000 req/s' }]);
} finally {
  await sandbox.stop();
}
