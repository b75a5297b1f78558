// Another program holding the database's write lock (the sqlite3 shell, a DB browser, a backup)
// while the sandbox writes: a write that cannot get the lock within the busy timeout fails with
// nothing changed and leaves the store usable (the next transaction commits); a request answers
// 503 state_locked and is not remembered; the sandbox's own writes (key-use counts, a
// settlement) are done later, not dropped; and a close that cannot save says so.
// The lock is held by a second connection of this process, so the busy timeout is shortened
// (a real second process holding it: lock-contention.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Sealer } from '../../src/sandbox/crypto/sealer.js';
import { openDatabase } from '../../src/sandbox/store/db.js';
import { Store } from '../../src/sandbox/store/store.js';
import { StateLockedError } from '../../src/sandbox/store/transactions.js';
import { expectApiError, onDisk, startSandbox } from './helpers.js';

let dir: string;
let statePath: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sbx-busy-'));
  statePath = join(dir, 'state.db');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A short wait: the holder is this process, so waiting longer could not change anything. */
const BUSY_MS = 30;

/** Another connection holding the write lock until release(). */
function holdWriteLock(path: string): { release(): void } {
  const other = new Database(path);
  other.exec('BEGIN IMMEDIATE');
  return {
    release() {
      other.exec('COMMIT');
      other.close();
    },
  };
}

const metaOnDisk = (key: string) => onDisk<{ value: string }>(statePath, `SELECT value FROM meta WHERE key = '${key}'`).map((r) => r.value);

describe('a BEGIN that cannot get the write lock', () => {
  it('fails with nothing begun, and leaves the store usable: the next transaction, and the next batch, commit', async () => {
    const db = openDatabase(statePath, { busyTimeoutMs: BUSY_MS });
    const store = new Store(db, Sealer.random());
    store.load();
    try {
      const lock = holdWriteLock(statePath);
      let ran = false;
      expect(() => store.tx(() => {
        ran = true;
        store.setMeta('a', '1');
      })).toThrow(/locked/);
      expect(ran).toBe(false);
      expect(store.inTransaction).toBe(false);
      expect(() => store.txGrouped(() => store.credit('acct_a', 'USDG', 5n))).toThrow(/locked/);
      expect(store.balance('acct_a', 'USDG')).toBe(0n); // the request never ran
      lock.release();

      store.setMeta('b', '2');
      expect(metaOnDisk('b')).toEqual(['2']); // committed: another connection sees it
      await store.txGrouped(() => store.credit('acct_a', 'USDG', 5n));
      expect(onDisk(statePath, 'SELECT account_id FROM balances')).toEqual([{ account_id: 'acct_a' }]);
      expect(metaOnDisk('a')).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('is a StateLockedError (state_locked), without the SQLite error', () => {
    const db = openDatabase(statePath, { busyTimeoutMs: BUSY_MS });
    const store = new Store(db, Sealer.random());
    const lock = holdWriteLock(statePath);
    try {
      let err: unknown;
      try {
        store.setMeta('a', '1');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StateLockedError);
      expect(err).toMatchObject({ code: 'state_locked' });
      expect((err as Error).message).not.toMatch(/SQLITE/);
    } finally {
      lock.release();
      store.close();
    }
  });

  it('a transaction whose COMMIT fails rolls back and leaves the store usable too', () => {
    const db = openDatabase(statePath, { busyTimeoutMs: BUSY_MS });
    const store = new Store(db, Sealer.random());
    store.load();
    try {
      // A deferred foreign key broken by the write: SQLite refuses the COMMIT itself.
      db.exec('PRAGMA foreign_keys = ON');
      db.exec(`CREATE TABLE parent (id TEXT PRIMARY KEY);
        CREATE TABLE child (parent_id TEXT REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
        CREATE TRIGGER poison AFTER INSERT ON meta WHEN NEW.key = 'poison' BEGIN INSERT INTO child VALUES ('missing'); END;`);
      expect(() => store.setMeta('poison', 'x')).toThrow(/FOREIGN KEY/i);
      expect(db.inTransaction).toBe(false);
      store.setMeta('after', 'y');
      expect(metaOnDisk('after')).toEqual(['y']);
      expect(metaOnDisk('poison')).toEqual([]);
    } finally {
      store.close();
    }
  });
});

describe('a sandbox whose database another program locks', () => {
  const start = () => startSandbox({ ephemeral: false, statePath, blockTimeMs: 1000 }, { internals: { busyTimeoutMs: BUSY_MS, flushEveryMs: 3_600_000 } });

  it('a write answers 503 state_locked (Retry-After), is not remembered, and runs when retried after the lock is gone', async () => {
    const t = await start();
    try {
      const lock = holdWriteLock(statePath);
      const body = { to: '@acme', amount: '2.5' };
      const refused = await t.as('@alice').send(body, { headers: { 'idempotency-key': 'busy-1' } });
      expectApiError(refused, 503, 'state_locked');
      expect(refused.headers.get('retry-after')).toBe('1');
      const fund = await t.admin('POST', '/_sandbox/fund', { handle: '@alice', amount: '5' });
      expectApiError(fund, 503, 'state_locked');
      expect(t.balance('@alice')).toBe(1_000_000_000n); // nothing moved
      lock.release();

      const again = await t.as('@alice').send(body, { headers: { 'idempotency-key': 'busy-1' } });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBeNull(); // it ran: the 503 was not remembered
      expect((await t.admin('POST', '/_sandbox/fund', { handle: '@alice', amount: '5' })).status).toBe(200);
      expect(onDisk<{ transfer_id: string }>(statePath, 'SELECT transfer_id FROM transfers').map((r) => r.transfer_id)).toEqual([again.body.transfer_id]);
      expect(t.balance('@alice')).toBe(1_002_500_000n);
    } finally {
      await t.close();
    }
    const restarted = await startSandbox({ ephemeral: false, statePath });
    try {
      expect(restarted.balance('@alice')).toBe(1_002_500_000n);
    } finally {
      await restarted.close();
    }
  });

  it('key-use counts a flush could not write stay to be written, and are written once it can', async () => {
    const t = await start();
    try {
      const counts = () => onDisk<{ record: string }>(statePath, 'SELECT record FROM api_keys').map((r) => JSON.parse(r.record).request_count as number).sort((a, b) => b - a)[0];
      t.world.flush();
      const before = counts();
      const lock = holdWriteLock(statePath);
      for (let i = 0; i < 3; i++) expect((await t.as('@alice').get('/v1/accounts/me')).status).toBe(200);
      expect(t.world.flush({ wait: false })).toMatch(/locked/); // the periodic flush: fails at once
      expect(t.world.flush()).toMatch(/locked/); // and a waiting one, after the wait
      expect(t.logs.filter((l) => /could not save key-use statistics.*locked.*trying again every second/.test(l))).toHaveLength(1);
      expect(counts()).toBe(before);
      lock.release();
      expect(t.world.flush({ wait: false })).toBeUndefined();
      expect(counts()).toBe(before + 3);
    } finally {
      await t.close();
    }
  });

  it('a settlement that could not be written is made once writes go through again, not dropped', async () => {
    const t = await start();
    try {
      const sent = await t.as('@alice').send({ to: '@acme', amount: '1' });
      expect(sent.status).toBe(201);
      const lock = holdWriteLock(statePath);
      await t.world.scheduler.advance(1000); // due now: its write fails
      expect(t.logs.some((l) => /locked/.test(l))).toBe(true);
      expect(t.world.store.transfer(sent.body.transfer_id)!.status).toBe('pending');
      lock.release();
      expect(t.world.flush({ wait: false })).toBeUndefined(); // writes go through: the work is scheduled again
      await t.world.scheduler.runDue();
      await t.world.store.committed();
      const status = onDisk<{ record: string }>(statePath, 'SELECT record FROM transfers').map((r) => JSON.parse(r.record).status);
      expect(status).toEqual(['confirmed']);
      expect(t.balance('@acme')).toBe(50_001_000_000n);
    } finally {
      await t.close();
    }
  });

  it('a close that cannot write its last flush reports what was not saved', async () => {
    const t = await start();
    const lock = holdWriteLock(statePath);
    try {
      expect((await t.as('@alice').get('/v1/accounts/me')).status).toBe(200);
      await t.close();
      expect(t.sandbox.unsaved()).toEqual([expect.stringMatching(/^key-use statistics.*locked/)]);
    } finally {
      lock.release();
    }
    const clean = await start();
    await clean.close();
    expect(clean.sandbox.unsaved()).toEqual([]);
  });
});
