// Whether `svc --json transfer ls --all` holds the list or streams it: the peak live heap (a
// full GC every 50 ms, so only what the CLI keeps reachable counts, not RSS) for 1,000 and for
// 100,000 transfers served by a fake paged service on loopback. Streaming keeps them within a
// few MB of each other (a page is about 50 KB); holding 100,000 transfers would add tens of MB.
// Moved here from the test suite: a memory figure is a measurement, not a test assertion.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, fmt } from './lib.mjs';
import { report } from './measure.mjs';

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-heap-'));
const probe = join(dir, 'heap-probe.mjs');
writeFileSync(probe, [
  "import { writeFileSync } from 'node:fs';",
  'let peak = 0;',
  'const sample = () => { globalThis.gc(); peak = Math.max(peak, process.memoryUsage().heapUsed); };',
  'setInterval(sample, 50).unref();',
  "process.on('exit', () => { sample(); writeFileSync(process.env.HEAP_FILE, String(peak)); });",
].join('\n'));

/** A service that answers GET /v1/transfers with `total` transfers, 100 a page. */
function pagedService(total) {
  const server = createServer((req, res) => {
    const q = new URL(req.url, 'http://x').searchParams;
    const offset = Number(q.get('offset') ?? 0);
    const limit = Number(q.get('limit') ?? 20);
    const transfers = [];
    for (let i = offset; i < Math.min(total, offset + limit); i++) {
      transfers.push({ transfer_id: `tr_${String(i).padStart(6, '0')}`, status: 'confirmed', to: '@acme', confidential: true, tx_hash: `0x${i.toString(16)}`, created_at: '2024-01-01T00:00:00Z' });
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ transfers, limit, offset, has_more: offset + limit < total }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function peakHeapMb(total) {
  const server = await pagedService(total);
  const heapFile = join(dir, `heap-${total}`);
  const env = {
    ...process.env, SVC_CONFIG_DIR: join(dir, 'config'), SVC_API_KEY: `svc_test_${'b'.repeat(24)}`,
    SVC_BASE_URL: `http://127.0.0.1:${server.address().port}`, NODE_OPTIONS: `--expose-gc --import ${probe}`, HEAP_FILE: heapFile,
  };
  try {
    // Not spawnSync: the fake service runs in this process.
    const out = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, '--json', 'transfer', 'ls', '--all'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
      const chunks = [];
      child.stdout.on('data', (b) => chunks.push(b));
      child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`svc exited ${code}`))));
    });
    const rows = JSON.parse(out).length;
    if (rows !== total) throw new Error(`svc listed ${rows} of ${total} transfers`);
    return { mb: Number(readFileSync(heapFile, 'utf8')) / 2 ** 20 };
  } finally {
    server.close();
  }
}

try {
  const small = await peakHeapMb(1_000);
  const large = await peakHeapMb(100_000);
  console.log(`peak live heap: ${fmt(small.mb)} MB for 1,000 transfers, ${fmt(large.mb)} MB for 100,000 (+${fmt(large.mb - small.mb)} MB)`);
  report('live heap of a streamed list', [
    { label: 'svc --json transfer ls --all, 1,000 transfers', value: `${fmt(small.mb)} MB live heap` },
    { label: 'svc --json transfer ls --all, 100,000 transfers', value: `${fmt(large.mb)} MB live heap (+${fmt(large.mb - small.mb)} MB)`, aim: '< +8 MB over 1,000' },
  ], 'a full GC every 50 ms in the svc process; the peak of heapUsed');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
