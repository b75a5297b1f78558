// Every statement the store runs, prepared once per database, and the one way records are read
// back (getIdempotency reads a replayed answer, the one record not kept in memory). A row holds
// its record as JSON in `record` (its shape is a zod schema of ../records.ts); the other columns
// exist to be found or ordered by (migrations.ts).
import type * as z from 'zod/mini';
import type { Db } from './db.js';

/** A prepared statement that writes. */
export interface Statement {
  run(...params: unknown[]): unknown;
}

/** The tables that hold the world; `meta` (the clock) is not one of them and survives a reset. */
export const WORLD_TABLES = [
  'accounts', 'api_keys', 'balances', 'transfers', 'policies', 'held', 'idempotency',
  'webhook_subscriptions', 'webhook_events', 'webhook_deliveries', 'webhook_attempts',
] as const;

export function prepareStatements(db: Db) {
  const p = (sql: string) => db.prepare(sql);
  return {
    putMeta: p('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    putAccount: p('INSERT INTO accounts (account_id, record) VALUES (?, ?) ON CONFLICT (account_id) DO UPDATE SET record = excluded.record'),
    putKey: p('INSERT INTO api_keys (key_id, record) VALUES (?, ?) ON CONFLICT (key_id) DO UPDATE SET record = excluded.record'),
    putBalance: p(`INSERT INTO balances (account_id, asset, sealed, version, ciphertext) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (account_id, asset) DO UPDATE SET sealed = excluded.sealed, version = excluded.version, ciphertext = excluded.ciphertext`),
    putBalanceCiphertext: p('UPDATE balances SET ciphertext = ? WHERE account_id = ? AND asset = ? AND version = ?'),
    addTransfer: p('INSERT INTO transfers (transfer_id, seq, record) VALUES (?, ?, ?)'),
    putTransfer: p('UPDATE transfers SET record = ? WHERE transfer_id = ?'),
    putPolicy: p('INSERT INTO policies (agent_account_id, record) VALUES (?, ?) ON CONFLICT (agent_account_id) DO UPDATE SET record = excluded.record'),
    putHeld: p('INSERT INTO held (transaction_id, record) VALUES (?, ?) ON CONFLICT (transaction_id) DO UPDATE SET record = excluded.record'),
    putIdempotency: p(`INSERT INTO idempotency (scope, key, created_at, record) VALUES (?, ?, ?, ?)
      ON CONFLICT (scope, key) DO UPDATE SET created_at = excluded.created_at, record = excluded.record`),
    dropIdempotency: p('DELETE FROM idempotency WHERE scope = ? AND key = ?'),
    getIdempotency: p('SELECT record FROM idempotency WHERE scope = ? AND key = ?'),
    putSubscription: p('INSERT INTO webhook_subscriptions (webhook_id, record) VALUES (?, ?) ON CONFLICT (webhook_id) DO UPDATE SET record = excluded.record'),
    dropSubscription: p('DELETE FROM webhook_subscriptions WHERE webhook_id = ?'),
    putEvent: p('INSERT INTO webhook_events (event_id, record) VALUES (?, ?) ON CONFLICT (event_id) DO UPDATE SET record = excluded.record'),
    dropEvent: p('DELETE FROM webhook_events WHERE event_id = ?'),
    putDelivery: p('INSERT INTO webhook_deliveries (delivery_id, record) VALUES (?, ?) ON CONFLICT (delivery_id) DO UPDATE SET record = excluded.record'),
    dropDelivery: p('DELETE FROM webhook_deliveries WHERE delivery_id = ?'),
    addAttempt: p('INSERT INTO webhook_attempts (webhook_id, record) VALUES (?, ?)'),
    dropAttemptsOf: p('DELETE FROM webhook_attempts WHERE webhook_id = ?'),
    dropOldAttempts: p('DELETE FROM webhook_attempts WHERE webhook_id = ? AND id <= (SELECT id FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)'),
  } satisfies Record<string, Statement>;
}

export type Statements = ReturnType<typeof prepareStatements>;

/** The records a query selects (as `record`), each checked against its schema. */
export function readRecords<T extends z.ZodMiniType>(db: Db, sql: string, schema: T): z.infer<T>[] {
  return (db.prepare(sql).all() as Array<{ record: string }>).map((r) => schema.parse(JSON.parse(r.record)) as z.infer<T>);
}
