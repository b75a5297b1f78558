// Group commit (src/sandbox/store/transactions.ts): the changing requests of one event-loop turn share one
// transaction. Nothing of a batch is acknowledged before its COMMIT has returned, and a batch
// that fails (a request in it throws, or the COMMIT itself fails) acknowledges none of its
// requests, leaves nothing on disk, and leaves memory as the database has it.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Sealer } from '../../src/sandbox/crypto/sealer.js';
import { Store } from '../../src/sandbox/store/store.js';
import { openDatabase, type Db } from '../../src/sandbox/store/db.js';
import { dbExec, onDisk, startSandbox } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sbx-group-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const balancesOnDisk = (path: string) =>
  onDisk<{ account_id: string; version: number }>(path, 'SELECT account_id, version FROM balances ORDER BY account_id').map((r) => [r.account_id, r.version]);

/** A store on a database file, reloading itself after a rollback as the world does. */
function openStore(path: string): { db: Db; store: Store; rollbacks: unknown[] } {
  const db = openDatabase(path);
  const rollbacks: unknown[] = [];
  const store: Store = new Store(db, Sealer.random(), {
    onRollback: (err) => {
      rollbacks.push(err);
      store.load();
    },
  });
  store.load();
  return { db, store, rollbacks };
}

describe('the store', () => {
  it('commits the changes of one turn together, and acknowledges each only once they are on disk', async () => {
    const path = join(dir, 'state.db');
    const { store } = openStore(path);
    try {
      const seenAtAck: unknown[] = [];
      const a = store.txGrouped(() => store.credit('acct_a', 'USDG', 5n)).then(() => seenAtAck.push(balancesOnDisk(path)));
      const b = store.txGrouped(() => store.credit('acct_b', 'USDG', 7n)).then(() => seenAtAck.push(balancesOnDisk(path)));
      let read = false;
      const r = store.committed().then(() => (read = true));
      // Both ran (the second saw the first's state), neither is on disk yet, nobody was answered.
      expect(store.balance('acct_a', 'USDG')).toBe(5n);
      expect(balancesOnDisk(path)).toEqual([]);
      await Promise.all([a, b, r]);
      expect(read).toBe(true);
      expect(seenAtAck).toEqual([[['acct_a', 1], ['acct_b', 1]], [['acct_a', 1], ['acct_b', 1]]]);
      await expect(store.committed()).resolves.toBeUndefined(); // nothing open any more
    } finally {
      store.close();
    }
  });

  it('a batch whose COMMIT fails acknowledges none of its requests and leaves nothing behind', async () => {
    const path = join(dir, 'state.db');
    const { db, store, rollbacks } = openStore(path);
    try {
      await store.txGrouped(() => store.credit('acct_a', 'USDG', 100n));
      // A deferred foreign key that the poisoned row breaks: SQLite refuses the COMMIT itself.
      db.exec('PRAGMA foreign_keys = ON');
      db.exec(`CREATE TABLE parent (id TEXT PRIMARY KEY);
        CREATE TABLE child (parent_id TEXT REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
        CREATE TRIGGER poison AFTER INSERT ON balances WHEN NEW.account_id = 'acct_poison' BEGIN INSERT INTO child VALUES ('missing'); END;`);
      const results = await Promise.allSettled([
        store.txGrouped(() => store.debit('acct_a', 'USDG', 30n)),
        store.txGrouped(() => store.credit('acct_poison', 'USDG', 30n)),
        store.txGrouped(() => store.credit('acct_c', 'USDG', 1n)),
        store.committed(),
      ]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
      expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/rolled back with the batch.*FOREIGN KEY/i);
      expect(rollbacks).toHaveLength(1);
      // Nothing of the batch on disk, and memory is what the database holds.
      expect(balancesOnDisk(path)).toEqual([['acct_a', 1]]);
      expect(store.balance('acct_a', 'USDG')).toBe(100n);
      expect(store.balance('acct_poison', 'USDG')).toBe(0n);
      expect(store.balance('acct_c', 'USDG')).toBe(0n);
      // The store goes on: the next batch commits.
      db.exec('DROP TRIGGER poison');
      await store.txGrouped(() => store.debit('acct_a', 'USDG', 30n));
      expect(balancesOnDisk(path)).toEqual([['acct_a', 2]]);
      expect(store.balance('acct_a', 'USDG')).toBe(70n);
    } finally {
      store.close();
    }
  });

  it('a request that throws fails its whole batch: the others of the batch are not acknowledged either', async () => {
    const path = join(dir, 'state.db');
    const { store, rollbacks } = openStore(path);
    try {
      const first = store.txGrouped(() => store.credit('acct_a', 'USDG', 5n));
      expect(() => store.txGrouped(() => {
        store.credit('acct_b', 'USDG', 7n);
        throw new Error('boom');
      })).toThrow('boom');
      await expect(first).rejects.toThrow(/rolled back with the batch it was committed in \(boom\)/);
      expect(rollbacks).toHaveLength(1);
      expect(balancesOnDisk(path)).toEqual([]);
      expect([store.balance('acct_a', 'USDG'), store.balance('acct_b', 'USDG')]).toEqual([0n, 0n]);
      // A request of the next turn is in a new batch.
      await store.txGrouped(() => store.credit('acct_a', 'USDG', 5n));
      expect(balancesOnDisk(path)).toEqual([['acct_a', 1]]);
    } finally {
      store.close();
    }
  });

  it('a transaction of its own (the sandbox’s own work) commits the open batch first; so does close', async () => {
    const path = join(dir, 'state.db');
    const { store } = openStore(path);
    const pending = store.txGrouped(() => store.credit('acct_a', 'USDG', 5n));
    store.setMeta('k', 'v'); // commits the batch, then itself
    expect(balancesOnDisk(path)).toEqual([['acct_a', 1]]);
    await pending;
    const last = store.txGrouped(() => store.credit('acct_b', 'USDG', 5n));
    store.close();
    await last;
    expect(balancesOnDisk(path)).toEqual([['acct_a', 1], ['acct_b', 1]]);
  });
});

describe('the sandbox', () => {
  it('concurrent transfers with one that fails halfway: every 201 is on disk, every 500 left nothing, a retry goes through', async () => {
    const statePath = join(dir, 'state.db');
    const t = await startSandbox({ ephemeral: false, statePath });
    try {
      const sub = await t.as('@alice').post('/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['transfer.initiated'] });
      expect(sub.status).toBe(201);
      const acmeBefore = t.balance('@acme');
      // @alice's transfer fires an event for her subscription: its row cannot be written.
      dbExec(statePath, 'DROP TABLE webhook_events');
      const requests = Array.from({ length: 24 }, (_, i) =>
        i === 12
          ? { key: t.keyOf('@alice'), body: { to: '@acme', amount: '5' }, idem: 'poisoned' }
          : { key: t.keyOf('@acme'), body: { to: '@bob', amount: '1' }, idem: `k-${i}` });
      const answers = await sendTogether(t.sandbox.url, requests);
      expect(answers[12]!.status).toBe(500);
      // They arrived in one turn: the batch of the poisoned one held the others too.
      expect(answers.filter((a) => a.status === 500).length).toBeGreaterThan(1);
      expect(answers.every((a) => a.status === 201 || a.status === 500)).toBe(true);
      for (const a of answers.filter((x) => x.status === 500)) expect(a.body.error.code).toBe('internal_error');
      const ok = answers.filter((a) => a.status === 201);
      const onDiskIds = onDisk<{ transfer_id: string }>(statePath, 'SELECT transfer_id FROM transfers').map((r) => r.transfer_id).sort();
      expect(onDiskIds).toEqual(ok.map((a) => a.body.transfer_id).sort());
      expect(t.balance('@acme')).toBe(acmeBefore - BigInt(ok.length) * 1_000_000n);
      expect(onDisk(statePath, 'SELECT key FROM idempotency')).toHaveLength(ok.length);
      // A 500 is not remembered: the same key runs again once the store is whole.
      dbExec(statePath, 'CREATE TABLE webhook_events (event_id TEXT PRIMARY KEY, record TEXT NOT NULL)');
      for (const [i, a] of answers.entries()) {
        if (a.status !== 500) continue;
        const r = requests[i]!;
        const again = await t.call('POST', '/v1/transfers', { key: r.key, body: r.body, headers: { 'idempotency-key': r.idem } });
        expect(again.status).toBe(201);
        expect(again.headers.get('idempotent-replayed')).toBeNull();
      }
      expect(onDisk(statePath, 'SELECT transfer_id FROM transfers')).toHaveLength(24);
      expect(t.balance('@acme')).toBe(acmeBefore - 23n * 1_000_000n); // @alice's 5 arrive at settlement
    } finally {
      await t.close();
    }
  });

  it('settlements are on disk once advance() returns', async () => {
    const statePath = join(dir, 'state.db');
    const t = await startSandbox({ ephemeral: false, statePath });
    try {
      const sent = await Promise.all([1, 2, 3].map(() => t.as('@alice').send({ to: '@acme', amount: '1' })));
      await t.sandbox.advance(1500);
      const statuses = onDisk<{ record: string }>(statePath, 'SELECT record FROM transfers').map((r) => JSON.parse(r.record).status);
      expect(statuses).toEqual(['confirmed', 'confirmed', 'confirmed']);
      expect(sent.map((s) => s.status)).toEqual([201, 201, 201]);
    } finally {
      await t.close();
    }
  });
});

/**
 * Sends POST /v1/transfers requests so that they arrive together: each on its own keep-alive
 * connection, which first answers a GET (so the server has accepted every one of them and is
 * reading), then all requests are written in one go and the server reads them in one turn.
 */
async function sendTogether(url: string, requests: ReadonlyArray<{ key: string; body: unknown; idem: string }>): Promise<Array<{ status: number; body: any }>> {
  const { hostname, port } = new URL(url);
  const host = `Host: ${hostname}:${port}\r\n`;
  const conns = await Promise.all(requests.map(() => new Promise<{ socket: Socket; next: () => Promise<{ status: number; body: any }> }>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    let waiting: ((a: { status: number; body: any }) => void) | undefined;
    const complete = () => {
      const end = text.indexOf('\r\n\r\n');
      if (end < 0 || !waiting) return;
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))![1]);
      if (text.length < end + 4 + length) return;
      const answer = { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)![1]), body: JSON.parse(text.slice(end + 4, end + 4 + length)) };
      text = text.slice(end + 4 + length);
      const w = waiting;
      waiting = undefined;
      w(answer);
    };
    socket.setEncoding('utf8').on('data', (d: string) => {
      text += d;
      complete();
    });
    socket.once('error', reject);
    const next = () => new Promise<{ status: number; body: any }>((r) => {
      waiting = r;
      complete();
    });
    socket.once('connect', () => resolve({ socket, next }));
  })));
  await Promise.all(conns.map(async ({ socket, next }) => {
    const answered = next();
    socket.write(`GET /_sandbox/health HTTP/1.1\r\n${host}\r\n`);
    expect((await answered).status).toBe(200);
  }));
  const answers = conns.map(({ next }) => next());
  requests.forEach((r, i) => {
    const body = JSON.stringify(r.body);
    conns[i]!.socket.write(`POST /v1/transfers HTTP/1.1\r\n${host}Authorization: Bearer ${r.key}\r\nContent-Type: application/json\r\nIdempotency-Key: ${r.idem}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
  const out = await Promise.all(answers);
  for (const { socket } of conns) socket.destroy();
  return out;
}
