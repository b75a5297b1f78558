// Webhook delivery limits (docs/webhooks.md, "Delivery limits"): what subscriptions whose
// receiver is unreachable cost the sandbox. A durable sandbox process; @alice subscribes to a
// loopback port nobody listens on (every attempt: connection refused) and sends transfers, each
// of which queues two deliveries (initiated, confirmed) per subscription. Reported after each
// phase: pending deliveries (rows of webhook_deliveries), subscriptions disabled, the sandbox
// process's RSS (VmRSS now, VmHWM its peak) and the database on disk (file + WAL).
//
// A, the case: 100 subscriptions and 200 transfers; then the sandbox clock moves 25 h
//    (every delivery has had its 24 h of retries); then 200 more transfers.
// B, the cap: 10 subscriptions and BENCH_LIMIT_TRANSFERS transfers (default 1,500: 3,000
//    deliveries per subscription, three times the cap).
import { createServer } from 'node:net';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'libsql';
import { Pool } from 'undici';
import { fmt, postTransfers, startSandbox, sandboxApi as api } from './lib.mjs';
import { report } from './measure.mjs';

const CAP_TRANSFERS = Number(process.env.BENCH_LIMIT_TRANSFERS ?? 1_500);
const HOUR = 3_600_000;

/** A loopback port with nothing listening on it. */
async function deadPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}


const procKb = (pid, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
const size = (path) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** Reads the sandbox's database beside it (WAL: a reader sees every committed change). */
function counts(dbPath, now = 0) {
  const db = new Database(dbPath, { readonly: true });
  try {
    const one = (sql) => Object.values(db.prepare(sql).get())[0];
    return {
      pending: one('SELECT count(*) FROM webhook_deliveries'),
      // Due more than 2 s ago and still not moved on: waiting for a slot or in flight.
      overdue: one(`SELECT count(*) FROM webhook_deliveries WHERE json_extract(record, '$.due_at') < ${now - 2_000}`),
      disabled: one("SELECT count(*) FROM webhook_subscriptions WHERE json_extract(record, '$.status') = 'disabled'"),
    };
  } finally {
    db.close();
  }
}

/** Waits until every delivery due on the sandbox clock has been attempted (the queue has drained). */
async function drained(pool, sandbox, dbPath) {
  for (;;) {
    const now = Date.parse((await api(pool, sandbox, 'GET', '/_sandbox/clock', undefined, true)).now);
    const c = counts(dbPath, now);
    if (c.overdue === 0) return c;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const rows = [];
function measure(label, sandbox, dbPath, c, seconds) {
  const rssMb = procKb(sandbox.pid, 'VmRSS') / 1024;
  const peakMb = procKb(sandbox.pid, 'VmHWM') / 1024;
  const dbMb = (size(dbPath) + size(`${dbPath}-wal`)) / 1024 / 1024;
  const took = seconds === undefined ? '' : ` (${fmt(seconds, 0)} s)`;
  console.log(`${label}${took}: ${c.pending} pending deliveries, ${c.disabled} subscriptions disabled, RSS ${fmt(rssMb, 0)} MB (peak ${fmt(peakMb, 0)}), database ${fmt(dbMb, 1)} MB`);
  rows.push({ label, rssMb: peakMb, value: `${c.pending} pending, ${c.disabled} disabled, RSS ${fmt(rssMb, 0)} MB, db ${fmt(dbMb, 1)} MB` });
}

/** One sandbox: `subscriptions` to a dead port, then `steps` (each a label and what to do). */
async function scenario(name, subscriptions, steps) {
  const sandbox = await startSandbox([], { durable: true });
  const dbPath = join(sandbox.configDir, 'sandbox', 'state.db');
  const pool = new Pool(sandbox.url, { connections: 8 });
  try {
    const url = `http://127.0.0.1:${await deadPort()}/hook`;
    for (let i = 0; i < subscriptions; i++) {
      await api(pool, sandbox, 'POST', '/v1/webhooks', { url, events: ['transfer.initiated', 'transfer.confirmed', 'transfer.failed'] });
    }
    measure(`${name}: ${subscriptions} subscriptions to an unreachable URL`, sandbox, dbPath, counts(dbPath));
    let batch = 0;
    const ctx = {
      transfers: async (n) => {
        await postTransfers(sandbox, n, 8, `limits-${++batch}`);
        await api(pool, sandbox, 'POST', '/_sandbox/clock/advance', { ms: 2_000 }, true); // settles them: transfer.confirmed
        return drained(pool, sandbox, dbPath);
      },
      advance: async (ms) => {
        await api(pool, sandbox, 'POST', '/_sandbox/clock/advance', { ms }, true);
        return drained(pool, sandbox, dbPath);
      },
    };
    for (const [label, step] of steps) {
      const started = performance.now();
      const c = await step(ctx);
      measure(`${name}: ${label}`, sandbox, dbPath, c, (performance.now() - started) / 1000);
    }
  } finally {
    await pool.close();
    await sandbox.stop();
  }
}

const only = process.env.BENCH_LIMIT_ONLY;
if (!only || only === 'A') {
  await scenario('A', 100, [
    ['200 transfers', (c) => c.transfers(200)],
    ['sandbox clock +25 h', (c) => c.advance(25 * HOUR)],
    ['200 more transfers', (c) => c.transfers(200)],
  ]);
}
if (!only || only === 'B') await scenario('B', 10, [[`${CAP_TRANSFERS} transfers`, (c) => c.transfers(CAP_TRANSFERS)]]);
report('webhook delivery limits', rows, 'subscriptions to a loopback port nobody listens on; durable state; peak RSS is the sandbox process\'s VmHWM so far');
