// The reference for bench/sandbox-post.mjs: what a bare HTTP + SQLite server pays for one
// durable write per request, run in its own process as the sandbox is. node:http with the
// sandbox's server options (src/sandbox/index.ts); libsql on a file with the sandbox's durability and settings
// (src/sandbox/store/db.ts: WAL, synchronous = NORMAL, the same busy timeout, page cache and
// checkpoint interval): each request's INSERT commits (autocommit) before its answer, so a kill -9
// loses nothing acknowledged, exactly the sandbox's promise, and neither syncs at each commit (a
// power loss may lose the last commits of either). Per request it reads and
// parses the JSON body, checks the two fields, inserts one row with a random id (statement
// prepared once) and answers 201 with a small JSON body. No auth, idempotency, crypto,
// balances or settlement: that is the sandbox's own work, which the ratio measures.
// Prints `bare listening on http://127.0.0.1:<port>` on stderr; the database lives in argv[2].
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import Database from 'libsql';

const db = new Database(join(process.argv[2], 'bare.db'));
db.exec('PRAGMA journal_mode = WAL');
db.exec('PRAGMA synchronous = NORMAL');
db.exec('PRAGMA busy_timeout = 5000');
db.exec('PRAGMA cache_size = -32000');
db.exec('PRAGMA wal_autocheckpoint = 8000');
db.exec('CREATE TABLE IF NOT EXISTS transfers (id TEXT PRIMARY KEY, seq INTEGER, record TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO transfers (id, seq, record) VALUES (?, ?, ?)');
let seq = 0;

const answer = (res, status, body) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const server = createServer({ keepAliveTimeout: 5_000, headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 2_000 }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.url === '/_sandbox/fund') return answer(res, 200, {}); // the bench client funds first
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return answer(res, 400, { error: 'not JSON' });
    }
    if (typeof body?.to !== 'string' || typeof body?.amount !== 'string') return answer(res, 400, { error: 'to and amount are required' });
    const id = `tr_${randomUUID().replaceAll('-', '')}`;
    const record = { transfer_id: id, to: body.to, amount: body.amount, created_at: new Date().toISOString() };
    insert.run(id, ++seq, JSON.stringify(record));
    answer(res, 201, { transfer_id: id, status: 'pending', to: body.to, created_at: record.created_at });
  });
});
server.listen(0, '127.0.0.1', () => process.stderr.write(`bare listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => (db.close(), process.exit(0))));
