// Webhooks: how many deliveries per second the sandbox sustains to local receivers, and how many
// signature checks per second the `svc webhook verify` code path does.
//
// 1. burst: N deliveries are made to fail once (503), so they all wait for their first retry;
//    then the receivers accept and the sandbox clock is advanced 7 min, which makes all N due at
//    once. Measured: from the advance to the N-th accepted retry (pure engine + HTTP throughput,
//    bounded by 4 attempts in flight per receiver and 16 overall).
// 2. live: N deliveries of sample events fired through POST /_sandbox/trigger (32 concurrent
//    callers) to N / 1,000 receivers, each delivered at once. Measured: from the first trigger
//    to the N-th delivery received.
// 3. verify: inspectDelivery() (signature over the raw bytes + timestamp tolerance) in a loop,
//    in process, over dist/; plus the wall time of one `svc webhook verify` process.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { BIN, ROOT, fmt, medianMs, startSandbox, sandboxApi as api } from './lib.mjs';
import { report } from './measure.mjs';

const N = Number(process.env.BENCH_WEBHOOKS ?? 5_000);
// A subscription keeps at most 1,000 pending deliveries (src/sandbox/webhooks/limits.ts, issue
// 34): a burst to one receiver beyond that would end the oldest and never drain, so it is capped.
const PENDING_PER_WEBHOOK = 1_000;
// A wait that makes no progress this long is a failure, not a hang of `npm run bench`.
const STALL_MS = 60_000;
const VERIFY_N = Number(process.env.BENCH_VERIFY ?? 200_000);

/** A receiver answering `status()` to every POST; counts accepted deliveries. */
async function startReceiver() {
  const r = { status: 503, accepted: 0, firstAttempts: 0, onAccepted: () => {} };
  const server = createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.headers['x-service-delivery-attempt'] === '1') r.firstAttempts++;
      const status = r.status;
      res.writeHead(status);
      res.end();
      if (status < 300) {
        r.accepted++;
        r.onAccepted();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${server.address().port}/hook`;
  r.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); });
  return r;
}

/** Resolves once `count()` reaches `total`; rejects when it has not moved for STALL_MS. */
function until(what, count, total) {
  return new Promise((resolve, reject) => {
    let last = -1;
    let movedAt = performance.now();
    const t = setInterval(() => {
      const n = count();
      if (n >= total) return clearInterval(t), resolve();
      if (n !== last) (last = n), (movedAt = performance.now());
      else if (performance.now() - movedAt > STALL_MS) clearInterval(t), reject(new Error(`${what}: stuck at ${n} of ${total} for ${STALL_MS / 1000} s`));
    }, 20);
  });
}

const untilAccepted = (receivers, total) => until('accepted deliveries', () => receivers.reduce((n, r) => n + r.accepted, 0), total);


async function fire(pool, sandbox, count, concurrency = 32) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      await api(pool, sandbox, 'POST', '/_sandbox/trigger', { event: 'transfer.confirmed' }, true);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function burst(receiverCount) {
  const sandbox = await startSandbox();
  const pool = new Pool(sandbox.url, { connections: 32 });
  const receivers = await Promise.all(Array.from({ length: receiverCount }, startReceiver));
  try {
    const subs = [];
    for (const r of receivers) subs.push(await api(pool, sandbox, 'POST', '/v1/webhooks', { url: r.url, events: ['transfer.confirmed'] }));
    // Each trigger fans out to every subscription: N / receivers triggers make N deliveries.
    const triggers = Math.min(Math.ceil(N / receiverCount), PENDING_PER_WEBHOOK);
    await fire(pool, sandbox, triggers);
    const total = triggers * receiverCount;
    await until('first attempts', () => receivers.reduce((n, r) => n + r.firstAttempts, 0), total);
    for (const r of receivers) r.status = 200;
    const started = performance.now();
    const done = untilAccepted(receivers, total);
    // 7 min: every first retry (5 s) is due, and any that real time already ran and failed again (5 min).
    await api(pool, sandbox, 'POST', '/_sandbox/clock/advance', { ms: 7 * 60_000 }, true);
    await done;
    const s = (performance.now() - started) / 1000;
    console.log(`burst: ${total} due retries to ${receiverCount} receiver${receiverCount > 1 ? 's' : ''} drained in ${fmt(s, 2)} s = ${fmt(total / s, 0)} deliveries/s`);
    rows.push({ label: `${total} due retries to ${receiverCount} receiver${receiverCount > 1 ? 's' : ''}`, value: `${fmt(total / s, 0)} deliveries/s` });
    void subs;
  } finally {
    await pool.close();
    await Promise.all(receivers.map((r) => r.close()));
    await sandbox.stop();
  }
}

async function live() {
  const sandbox = await startSandbox();
  const pool = new Pool(sandbox.url, { connections: 32 });
  // Enough receivers that none has more than a subscription's cap pending at once (each trigger
  // fans out to every subscription: N / receivers triggers make N deliveries).
  const receivers = await Promise.all(Array.from({ length: Math.ceil(N / PENDING_PER_WEBHOOK) }, startReceiver));
  for (const r of receivers) r.status = 200;
  try {
    for (const r of receivers) await api(pool, sandbox, 'POST', '/v1/webhooks', { url: r.url, events: ['transfer.confirmed'] });
    const triggers = Math.ceil(N / receivers.length);
    const total = triggers * receivers.length;
    const started = performance.now();
    const done = untilAccepted(receivers, total);
    await fire(pool, sandbox, triggers);
    const firedS = (performance.now() - started) / 1000;
    await done;
    const s = (performance.now() - started) / 1000;
    console.log(`live: ${triggers} events fired in ${fmt(firedS, 2)} s (${fmt(triggers / firedS, 0)} triggers/s) to ${receivers.length} receivers, all ${total} delivered after ${fmt(s, 2)} s = ${fmt(total / s, 0)} deliveries/s`);
    rows.push({ label: `${total} live deliveries (${triggers} events to ${receivers.length} receivers), fired and delivered`, value: `${fmt(total / s, 0)} deliveries/s` });
  } finally {
    await pool.close();
    await Promise.all(receivers.map((r) => r.close()));
    await sandbox.stop();
  }
}

async function verify() {
  const { inspectDelivery } = await import(pathToFileURL(join(ROOT, 'dist/commands/webhook/delivery-check.js')).href);
  const secret = 'whsec_bench000000000000000000000000000000';
  const body = Buffer.from(JSON.stringify({
    event_id: 'evt_AbCdEfGhIjKlMnOpQrStUvWx', event: 'transfer.confirmed', account: '@alice', direction: 'sent',
    counterparty: '@acme', asset: 'USDG', confidential: true, tx_hash: `0x${'ab'.repeat(32)}`,
    transfer_id: 'tr_AbCdEfGhIjKlMnOpQrStUvWx', timestamp: new Date().toISOString(), occurred_at: new Date().toISOString(),
  }));
  const sig = createHmac('sha256', secret).update(body).digest('hex');
  for (let i = 0; i < 10_000; i++) inspectDelivery(secret, body, sig, 300_000, Date.now()); // warm up
  const started = performance.now();
  let bad = 0;
  for (let i = 0; i < VERIFY_N; i++) if (inspectDelivery(secret, body, sig, 300_000, Date.now()).problem !== undefined) bad++;
  const s = (performance.now() - started) / 1000;
  if (bad) throw new Error(`${bad} verifications failed`);
  console.log(`verify: ${VERIFY_N} inspectDelivery() calls (${body.length}-byte body) in ${fmt(s, 2)} s = ${fmt(VERIFY_N / s, 0)} verifications/s`);
  rows.push({ label: 'signature + timestamp checks, in process', value: `${fmt(VERIFY_N / s, 0)} /s` });
  const env = { ...process.env, WH_SECRET: secret, NO_COLOR: '1' };
  const file = join(ROOT, 'bench', '.webhook-body.json');
  const { writeFileSync, rmSync } = await import('node:fs');
  writeFileSync(file, body);
  try {
    const ms = medianMs([BIN, 'webhook', 'verify', '--secret-env', 'WH_SECRET', '--signature', sig, '--payload-file', file, '--tolerance', '0'], env, 10);
    console.log(`verify: one \`svc webhook verify\` process, median wall time ${fmt(ms)} ms`);
    rows.push({ label: 'one `svc webhook verify` process', ms });
  } finally {
    rmSync(file, { force: true });
  }
}

const rows = [];
await burst(1);
await burst(4);
await live();
await verify();
report('webhooks', rows);
