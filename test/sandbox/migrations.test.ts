// Schema migrations (src/sandbox/store/migrations.ts): a database written by an earlier svc is
// brought up to date at start, in place, with everything it held.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/sandbox/store/db.js';
import { dbExec, onDisk, startSandbox } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sbx-migrate-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('schema 1 → 2 (transfers kept in creation order)', () => {
  it('keeps every transfer, in order, still unique by id; new transfers follow on', async () => {
    const statePath = join(dir, 'state.db');
    const first = await startSandbox({ ephemeral: false, statePath });
    const alice = first.keyOf('@alice');
    const sent: string[] = [];
    for (const amount of ['1', '2.5', '3']) sent.push((await first.as('@alice').send({ to: '@acme', amount })).body.transfer_id as string);
    await first.sandbox.advance(1500);
    sent.push((await first.as('@alice').send({ to: '@bob', amount: '4' }, { headers: { 'idempotency-key': 'mig-1' } })).body.transfer_id as string);
    const { clock: _c, ...before } = first.sandbox.export();
    await first.close();

    // As schema 1 left it: transfers WITHOUT ROWID, keyed by their (random) id.
    dbExec(statePath, `
      CREATE TABLE transfers_v1 (transfer_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, record TEXT NOT NULL) WITHOUT ROWID;
      INSERT INTO transfers_v1 SELECT transfer_id, seq, record FROM transfers;
      DROP TABLE transfers;
      ALTER TABLE transfers_v1 RENAME TO transfers;
      PRAGMA user_version = 1;`);

    const second = await startSandbox({ ephemeral: false, statePath });
    try {
      expect(second.sandbox.restored).toBe(true);
      const { clock: _d, ...after } = second.sandbox.export();
      expect(after).toEqual({ ...before, schema_version: SCHEMA_VERSION });
      const list = await second.call('GET', '/v1/transfers', { key: alice });
      expect(list.body.transfers.map((t: { transfer_id: string }) => t.transfer_id)).toEqual([...sent].reverse());
      const replay = await second.call('POST', '/v1/transfers', { key: alice, body: { to: '@bob', amount: '4' }, headers: { 'idempotency-key': 'mig-1' } });
      expect(replay.body.transfer_id).toBe(sent[3]);
      const next = await second.call('POST', '/v1/transfers', { key: alice, body: { to: '@acme', amount: '5' } });
      expect(next.status).toBe(201);
      await second.sandbox.advance(1500);
      expect((await second.call('GET', `/v1/transfers/${sent[3]}`, { key: alice })).body.status).toBe('confirmed');
    } finally {
      await second.close();
    }
    expect(onDisk<{ user_version: number }>(statePath, 'PRAGMA user_version')[0]!.user_version).toBe(SCHEMA_VERSION);
    const rows = onDisk<{ seq: number; transfer_id: string; record: string }>(statePath, 'SELECT seq, transfer_id, record FROM transfers ORDER BY rowid');
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(rows.slice(0, 4).map((r) => r.transfer_id)).toEqual(sent);
    expect(rows.map((r) => JSON.parse(r.record).status)).toEqual(['confirmed', 'confirmed', 'confirmed', 'confirmed', 'confirmed']);
    // Still one row per id.
    expect(() => dbExec(statePath, `INSERT INTO transfers (seq, transfer_id, record) VALUES (99, '${sent[0]}', '{}')`)).toThrow(/UNIQUE/);
  });
});
