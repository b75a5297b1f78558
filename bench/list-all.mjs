// 100,000 transfers in the sandbox, then `svc transfer ls --all --json`: wall time and peak RSS.
// Also reports how fast the sandbox accepted the POSTs (requests per second).
import { Pool } from 'undici';
import { BIN, fmt, startSandbox, timeRun } from './lib.mjs';

const COUNT = Number(process.env.BENCH_TRANSFERS ?? 100_000);
const CONCURRENCY = 64;
const sandbox = await startSandbox(['--block-time', '1', ...(process.env.BENCH_SANDBOX_VERBOSE ? ['--verbose'] : [])]);
try {
  const pool = new Pool(sandbox.url, { connections: CONCURRENCY, pipelining: 1 });
  const admin = await pool.request({
    method: 'POST',
    path: '/_sandbox/fund',
    headers: { 'content-type': 'application/json', 'x-sandbox-admin-token': sandbox.adminToken },
    body: JSON.stringify({ handle: '@alice', amount: String(COUNT), asset: 'USDG' }),
  });
  if (admin.statusCode !== 200) throw new Error(`fund failed: ${admin.statusCode} ${await admin.body.text()}`);
  await admin.body.dump();

  let next = 0;
  let failures = 0;
  const started = performance.now();
  async function worker() {
    while (next < COUNT) {
      const i = next++;
      const res = await pool.request({
        method: 'POST',
        path: '/v1/transfers',
        headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `bench-${i}` },
        body: JSON.stringify({ to: '@acme', amount: '0.01' }),
      });
      if (res.statusCode !== 201) failures++;
      if (i % 10000 === 0) console.error(`  ${i} sent (${((performance.now() - started) / 1000).toFixed(1)} s)`);
      await res.body.dump();
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  console.log(`sandbox: ${COUNT} POST /v1/transfers in ${fmt(seconds, 2)} s = ${fmt(COUNT / seconds, 0)} req/s (${failures} failed), ${CONCURRENCY} connections`);
  await pool.close();

  const run = timeRun([BIN, '--json', 'transfer', 'ls', '--all'], sandbox.env, { stdout: 'pipe' });
  const rows = JSON.parse(run.stdout.toString('utf8')).length;
  console.log(`svc transfer ls --all --json: ${rows} rows in ${fmt(run.ms / 1000, 2)} s, peak RSS ${fmt(run.rssMb)} MB`);
} finally {
  await sandbox.stop();
}
