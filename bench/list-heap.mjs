// Whether `svc transfer ls --all` holds the list or streams it, served by a fake paged service on
// loopback: the peak live heap (a full GC every 50 ms, so only what the CLI keeps reachable
// counts, not RSS) for 1,000 and for 100,000 transfers with --json; and with --json --decrypt
// (amounts encrypted to the profile's key, opened on worker threads past the first 1,000 rows)
// the same for 10,000 and 100,000, with the whole process's peak RSS (the workers' heaps are their
// own: RSS counts them). Streaming keeps each pair within a few MB (a page is about 50 KB);
// holding 100,000 transfers would add tens of MB.
// Moved here from the test suite: a memory figure is a measurement, not a test assertion.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt } from './lib.mjs';
import { report } from './measure.mjs';

const { contexts, encryptTo } = await import('../dist/crypto/ciphertext.js');
const { generateViewingKey } = await import('../dist/crypto/viewing-key.js');

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-heap-'));
const probe = join(dir, 'heap-probe.mjs');
writeFileSync(probe, [
  "import { writeFileSync } from 'node:fs';",
  "import { isMainThread } from 'node:worker_threads';",
  'let peak = 0;',
  'const sample = () => { globalThis.gc(); peak = Math.max(peak, process.memoryUsage().heapUsed); };',
  // The main thread's heap only (NODE_OPTIONS reaches the workers too).
  'if (isMainThread) {',
  '  setInterval(sample, 50).unref();',
  "  process.on('exit', () => { sample(); writeFileSync(process.env.HEAP_FILE, JSON.stringify({ heap: peak, rss: process.resourceUsage().maxRSS * 1024 })); });",
  '}',
].join('\n'));

const ACCOUNT = { account_id: 'acc_bench', handle: '@bench', type: 'personal', public_key: '0xabc', kyc_status: 'verified' };
const viewing = generateViewingKey('test');
// Sealed rows repeat every 1,000 (their ids too: only consecutive pages must start differently).
const SEALED = Array.from({ length: 1000 }, (_, i) => {
  const id = `tr_${String(i).padStart(6, '0')}`;
  return { id, ciphertext: encryptTo(viewing.publicKey, String(1_000_000 + i), contexts.transferAmount(id, ACCOUNT.account_id)) };
});

/** A service that answers GET /v1/transfers with `total` transfers (amounts encrypted when `sealed`), 100 a page. */
function pagedService(total, sealed) {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/v1/accounts/me') return res.end(JSON.stringify(ACCOUNT));
    const q = new URL(req.url, 'http://x').searchParams;
    const offset = Number(q.get('offset') ?? 0);
    const limit = Number(q.get('limit') ?? 20);
    const transfers = [];
    for (let i = offset; i < Math.min(total, offset + limit); i++) {
      const s = SEALED[i % SEALED.length];
      transfers.push({
        transfer_id: sealed ? s.id : `tr_${String(i).padStart(6, '0')}`, status: 'confirmed', to: '@acme', confidential: true, tx_hash: `0x${i.toString(16)}`, created_at: '2024-01-01T00:00:00Z',
        ...(sealed ? { asset: 'USDG', amount_ciphertext: s.ciphertext } : {}),
      });
    }
    res.end(JSON.stringify({ transfers, limit, offset, has_more: offset + limit < total }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function peaks(total, decrypt) {
  const server = await pagedService(total, decrypt);
  const heapFile = join(dir, `heap-${total}`);
  const env = {
    ...process.env, SVC_CONFIG_DIR: join(dir, 'config'), SVC_API_KEY: `svc_test_${'b'.repeat(24)}`,
    SVC_BASE_URL: `http://127.0.0.1:${server.address().port}`, NODE_OPTIONS: `--expose-gc --import ${probe}`, HEAP_FILE: heapFile,
    ...(decrypt ? { SVC_DECRYPTION_KEY: viewing.decryptionKey } : {}),
  };
  try {
    // Not spawnSync: the fake service runs in this process.
    const out = await new Promise((resolve, reject) => {
      // --timeout: this measures memory; on a busy machine 1,000 requests may add up to more network
      // time than the default 30 s (the fake service shares this process).
      const child = spawn(process.execPath, [BIN, '--timeout', '10m', '--json', 'transfer', 'ls', '--all', ...(decrypt ? ['--decrypt'] : [])], { env, stdio: ['ignore', 'pipe', 'inherit'] });
      const chunks = [];
      child.stdout.on('data', (b) => chunks.push(b));
      child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`svc exited ${code}`))));
    });
    const list = JSON.parse(out);
    if (list.length !== total) throw new Error(`svc listed ${list.length} of ${total} transfers`);
    if (decrypt && list.some((t, i) => Math.round(Number(t.amount) * 1e6) !== 1_000_000 + (i % 1000))) throw new Error('svc --decrypt gave a wrong amount');
    const { heap, rss } = JSON.parse(readFileSync(heapFile, 'utf8'));
    return { heap: heap / 2 ** 20, rss: rss / 2 ** 20 };
  } finally {
    server.close();
  }
}

try {
  const small = await peaks(1_000, false);
  const large = await peaks(100_000, false);
  console.log(`peak live heap: ${fmt(small.heap)} MB for 1,000 transfers, ${fmt(large.heap)} MB for 100,000 (+${fmt(large.heap - small.heap)} MB)`);
  const sealedSmall = await peaks(10_000, true);
  const sealedLarge = await peaks(100_000, true);
  console.log(`--decrypt: peak live heap ${fmt(sealedSmall.heap)} MB / peak RSS ${fmt(sealedSmall.rss)} MB for 10,000; ${fmt(sealedLarge.heap)} / ${fmt(sealedLarge.rss)} MB for 100,000`);
  report('live heap of a streamed list', [
    { label: 'svc --json transfer ls --all, 1,000 transfers', value: `${fmt(small.heap)} MB live heap` },
    { label: 'svc --json transfer ls --all, 100,000 transfers', value: `${fmt(large.heap)} MB live heap (+${fmt(large.heap - small.heap)} MB)`, aim: '< +8 MB over 1,000' },
    { label: 'svc --json transfer ls --all --decrypt, 10,000 transfers', rssMb: sealedSmall.rss, value: `${fmt(sealedSmall.heap)} MB live heap (main thread)` },
    { label: 'svc --json transfer ls --all --decrypt, 100,000 transfers', rssMb: sealedLarge.rss, value: `${fmt(sealedLarge.heap)} MB live heap (+${fmt(sealedLarge.heap - sealedSmall.heap)} MB), peak RSS +${fmt(sealedLarge.rss - sealedSmall.rss)} MB`, aim: '< +8 MB over 10,000' },
  ], 'a full GC every 50 ms on the main thread; the peak of its heapUsed; peak RSS of the whole process (with --expose-gc: not the figure of bench/list-all.mjs)');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
