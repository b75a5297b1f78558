// `svc transfer batch` over BENCH_ROWS rows (10,000 by default) against a sandbox in its own
// process: rows per second and peak RSS of the svc process at concurrency 4 and 8, then a rerun
// of the same file (every row already accepted: the journal answers, nothing is sent).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt, startSandbox, timeRun } from './lib.mjs';
import { report } from './measure.mjs';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const RECIPIENTS = ['@acme', '@bob', '0x1111111111111111111111111111111111111111'];

function payoutFile(dir, tag) {
  const lines = ['to,amount,asset,memo,ref'];
  for (let i = 1; i <= ROWS; i++) lines.push(`${RECIPIENTS[i % 3]},0.${String((i % 99) + 1).padStart(2, '0')},${i % 4 ? 'USDG' : 'USDC'},payout ${tag}-${i},${tag}-${i}`);
  const path = join(dir, `${tag}.csv`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const sandbox = await startSandbox(['--block-time', '1ms', '--quiet'], { durable: true });
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-batch-'));
try {
  for (const asset of ['USDG', 'USDC']) timeRun([BIN, 'sandbox', 'fund', '@alice', String(ROWS), '--asset', asset], sandbox.env);
  const results = [];
  for (const concurrency of [4, 8]) {
    const path = payoutFile(dir, `c${concurrency}`);
    const run = timeRun([BIN, '--json', 'transfer', 'batch', path, '--concurrency', String(concurrency)], sandbox.env, { stdout: 'pipe' });
    const doc = JSON.parse(run.stdout.toString('utf8'));
    const perSecond = ROWS / (run.ms / 1000);
    console.log(`batch of ${ROWS} at concurrency ${concurrency}: ${fmt(run.ms / 1000, 2)} s = ${fmt(perSecond, 0)} rows/s, peak RSS ${fmt(run.rssMb)} MB, sent ${doc.summary.sent}, failed ${doc.summary.failed}`);
    results.push({ label: `svc transfer batch (${ROWS} rows, --concurrency ${concurrency})`, ms: run.ms, rssMb: run.rssMb, value: `${fmt(perSecond, 0)} rows/s; sent ${doc.summary.sent}, failed ${doc.summary.failed}`, ...(concurrency === 8 ? { aim: '>= 500 rows/s, memory flat' } : {}) });
    if (concurrency === 8) {
      const again = timeRun([BIN, '--json', 'transfer', 'batch', path, '--concurrency', '8'], sandbox.env, { stdout: 'pipe' });
      const redo = JSON.parse(again.stdout.toString('utf8'));
      console.log(`rerun of the same file: ${fmt(again.ms / 1000, 2)} s, peak RSS ${fmt(again.rssMb)} MB, accepted earlier ${redo.summary.earlier}`);
      results.push({ label: 'rerun of the same file (all accepted earlier)', ms: again.ms, rssMb: again.rssMb, value: `${redo.summary.earlier} rows from the journal` });
    }
  }
  report(`transfer batch of ${ROWS.toLocaleString('en')} rows`, results, 'one run each, against a durable sandbox (--block-time 1ms) in its own process');
} finally {
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
}
