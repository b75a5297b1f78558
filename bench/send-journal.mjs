// `transfer send` with a large ledger: a cron job sending every 30 s for the 90 days the ledger
// keeps a payment leaves ~260,000 lines. Each send reads the ledger for its own key only (lines
// naming it are parsed, the rest are not), so its cost should barely move with the ledger's size.
import { spawnSync } from 'node:child_process';
import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, startSandbox } from './lib.mjs';
import { interleaved, report } from './measure.mjs';

const LINES = Number(process.env.BENCH_JOURNAL_LINES ?? 260_000);
const sandbox = await startSandbox(['--block-time', '1ms', '--quiet'], { durable: true });
try {
  const env = { ...sandbox.env, SVC_NO_UPDATE_NOTIFIER: '1' };
  let n = 0;
  // A case whose args are read at each run: every send goes under a new key, as a cron job's do.
  const sendCase = (label) => ({ label, get args() { return [BIN, '--json', 'transfer', 'send', '@acme', '0.01', '--idempotency-key', `bench-${process.pid}-${n++}`]; } });
  // The first send makes the ledger file of this account.
  const first = spawnSync(process.execPath, sendCase('').args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  if (first.status !== 0) throw new Error(`transfer send exited ${first.status}: ${first.stderr}`);
  const dir = join(env.SVC_CONFIG_DIR, 'ledger');
  const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.jsonl')));
  const small = interleaved([sendCase('transfer send, ledger of a few lines')], env);
  // Filled as months of sends would fill it: a tried and an accepted line per key, all within 90 days.
  const at = new Date().toISOString();
  let lines = [];
  for (let i = 0; i < LINES / 2; i++) {
    const key = `cron-${i}`;
    const request = 'f'.repeat(64);
    const attempt = `a${i}`;
    lines.push(
      JSON.stringify({ op: 'send', key, request, attempt, status: 'tried', at, svc_at: at }),
      JSON.stringify({ op: 'send', key, request, attempt, status: 'accepted', transfer_id: `tr_${String(i).padStart(24, '0')}`, at, svc_at: at }),
    );
    if (lines.length >= 20_000) {
      appendFileSync(file, `${lines.join('\n')}\n`);
      lines = [];
    }
  }
  if (lines.length) appendFileSync(file, `${lines.join('\n')}\n`);
  const large = interleaved([sendCase(`transfer send, ledger of ${LINES.toLocaleString('en')} lines`)], env);
  report('transfer send with a large ledger', [...small, ...large.slice(1)],
    `median of ${process.env.BENCH_RUNS ?? 15} interleaved runs against a durable sandbox; each send under a new key`);
} finally {
  await sandbox.stop();
}
