// The database schema, as ordered migrations: migration i takes `PRAGMA user_version` from i to
// i + 1. Never edit a released migration; add the next one. Records are JSON text in `record`
// (their shapes are the zod schemas of ../records.ts); the other columns exist to be found by.
// The idempotency records are WITHOUT ROWID: one B-tree per insert instead of a table and its
// index. Transfers were too, but their ids are random: migration 2 keeps them in creation order.
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE accounts (account_id TEXT PRIMARY KEY, record TEXT NOT NULL);
  CREATE TABLE api_keys (key_id TEXT PRIMARY KEY, record TEXT NOT NULL);
  CREATE TABLE balances (
    account_id TEXT NOT NULL, asset TEXT NOT NULL, sealed TEXT NOT NULL, version INTEGER NOT NULL, ciphertext TEXT,
    PRIMARY KEY (account_id, asset)
  );
  CREATE TABLE transfers (transfer_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, record TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE policies (agent_account_id TEXT PRIMARY KEY, record TEXT NOT NULL);
  CREATE TABLE held (transaction_id TEXT PRIMARY KEY, record TEXT NOT NULL);
  CREATE TABLE idempotency (
    scope TEXT NOT NULL, key TEXT NOT NULL, created_at INTEGER NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (scope, key)
  ) WITHOUT ROWID;
  CREATE TABLE webhook_subscriptions (webhook_id TEXT PRIMARY KEY, record TEXT NOT NULL);
  CREATE TABLE webhook_events (event_id TEXT PRIMARY KEY, record TEXT NOT NULL);
  CREATE TABLE webhook_deliveries (delivery_id TEXT PRIMARY KEY, record TEXT NOT NULL);
  CREATE TABLE webhook_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT, webhook_id TEXT NOT NULL, record TEXT NOT NULL
  );
  CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (webhook_id, id);
  `,
  // 2: transfers kept in creation order (a rowid table keyed by seq). Their ids are random, so in
  // the WITHOUT ROWID table each new transfer landed on a random page (and split it): a commit
  // wrote a page per transfer. Now new transfers append to the last pages; transfer_id stays
  // unique through its own index, whose small entries dirty far fewer bytes.
  `
  CREATE TABLE transfers_by_seq (seq INTEGER PRIMARY KEY, transfer_id TEXT NOT NULL UNIQUE, record TEXT NOT NULL);
  INSERT INTO transfers_by_seq (seq, transfer_id, record) SELECT seq, transfer_id, record FROM transfers ORDER BY seq;
  DROP TABLE transfers;
  ALTER TABLE transfers_by_seq RENAME TO transfers;
  `,
];
