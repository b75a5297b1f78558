// The state file of earlier sandboxes: one JSON snapshot (format svc-sandbox-state, version 1).
// On start it is imported once into the database, in one transaction, and kept beside it as a
// backup (`<file>.v1.bak`). Sealed values are copied as they are: the same key file opens them.
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import * as z from 'zod/mini';
import { SandboxStartError } from '../errors.js';
import {
  AccountRecord, ApiKeyRecord, AttemptRecord, DeliveryRecord, EventRecord, HeldRecord, IdempotencyRecord, SpendPolicyRecord,
  SubscriptionRecord, TransferRecord,
} from '../records.js';
import type { Db } from './db.js';
import { closeDatabase, isSqliteFile, openDatabase } from './db.js';
import { keyPathFor } from './key-file.js';

export const LEGACY_FORMAT = 'svc-sandbox-state';

const ms = z.int();
const LegacySnapshot = z.object({
  format: z.literal(LEGACY_FORMAT),
  version: z.literal(1),
  chain_id: z.int(),
  saved_at: z.string(),
  clock: z.object({ offset_ms: ms.check(z.nonnegative()), last_now_ms: ms }),
  accounts: z.array(AccountRecord),
  keys: z.array(ApiKeyRecord),
  balances: z.array(z.object({ account_id: z.string(), asset: z.string(), sealed: z.string() })),
  balance_ciphertexts: z._default(z.array(z.object({ account_id: z.string(), asset: z.string(), version: z.int().check(z.positive()), ciphertext: z.string() })), []),
  transfers: z.array(TransferRecord),
  idempotency: z.array(IdempotencyRecord),
  policies: z._default(z.array(SpendPolicyRecord), []),
  held: z._default(z.array(HeldRecord), []),
  webhooks: z.optional(z.object({
    subscriptions: z.array(SubscriptionRecord),
    events: z.array(EventRecord),
    deliveries: z.array(DeliveryRecord),
    attempts: z.array(AttemptRecord),
  })),
});
export type LegacySnapshot = z.infer<typeof LegacySnapshot>;

/** Whether a file is an earlier sandbox's JSON state. */
export function isLegacyStateFile(path: string): boolean {
  if (!existsSync(path) || isSqliteFile(path)) return false;
  const head = readFileSync(path, 'utf8').slice(0, 200);
  return head.trimStart().startsWith('{') && head.includes(LEGACY_FORMAT);
}

export function readLegacySnapshot(path: string): LegacySnapshot {
  const hint = 'move the file away to start a fresh sandbox, or use --ephemeral';
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new SandboxStartError('state_unreadable', `state file ${path} is not valid JSON (${(err as Error).message})`, hint);
  }
  const parsed = LegacySnapshot.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'document';
    throw new SandboxStartError('state_unreadable', `state file ${path} is not a sandbox state (version 1): ${where}: ${issue?.message ?? 'invalid'}`, hint);
  }
  return parsed.data;
}

/** An answer remembered by an older sandbox, as answers are now: without null-valued keys. */
function withoutNulls(text: string): string {
  if (!text.includes('null')) return text;
  const drop = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(drop);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, drop(x)]));
    return v;
  };
  try {
    return JSON.stringify(drop(JSON.parse(text)));
  } catch {
    return text;
  }
}

/** Writes every record of a snapshot into an empty database, in one transaction. No event fires. */
export function writeSnapshot(db: Db, snap: LegacySnapshot): void {
  const put = (table: string, id: string) => db.prepare(`INSERT INTO ${table} (${id}, record) VALUES (?, ?)`);
  const versions = new Map(snap.balance_ciphertexts.map((c) => [`${c.account_id}\u0000${c.asset}`, c]));
  db.transaction(() => {
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('clock', JSON.stringify(snap.clock));
    const accounts = put('accounts', 'account_id');
    // An agent saved before suspension existed is active.
    for (const a of snap.accounts) accounts.run(a.account_id, JSON.stringify(a.type === 'agent' && !a.status ? { ...a, status: 'active' } : a));
    const keys = put('api_keys', 'key_id');
    for (const k of snap.keys) keys.run(k.key_id, JSON.stringify(k));
    const balances = db.prepare('INSERT INTO balances (account_id, asset, sealed, version, ciphertext) VALUES (?, ?, ?, ?, ?)');
    for (const b of snap.balances) {
      const view = versions.get(`${b.account_id}\u0000${b.asset}`);
      balances.run(b.account_id, b.asset, b.sealed, view?.version ?? 1, view?.ciphertext ?? null);
    }
    const transfers = db.prepare('INSERT INTO transfers (transfer_id, seq, record) VALUES (?, ?, ?)');
    snap.transfers.forEach((t, i) => transfers.run(t.transfer_id, i + 1, JSON.stringify(t)));
    const policies = put('policies', 'agent_account_id');
    for (const p of snap.policies) policies.run(p.agent_account_id, JSON.stringify(p));
    const held = put('held', 'transaction_id');
    for (const h of snap.held) held.run(h.transaction_id, JSON.stringify(h));
    const idem = db.prepare('INSERT INTO idempotency (scope, key, created_at, record) VALUES (?, ?, ?, ?)');
    for (const r of snap.idempotency) idem.run(r.scope, r.key, r.created_at, JSON.stringify({ ...r, body: withoutNulls(r.body) }));
    const w = snap.webhooks;
    if (!w) return;
    const subs = put('webhook_subscriptions', 'webhook_id');
    for (const s of w.subscriptions) subs.run(s.webhook_id, JSON.stringify(s));
    const events = put('webhook_events', 'event_id');
    for (const e of w.events) events.run(e.event_id, JSON.stringify(e));
    const deliveries = put('webhook_deliveries', 'delivery_id');
    for (const d of w.deliveries) deliveries.run(d.delivery_id, JSON.stringify(d));
    const attempts = db.prepare('INSERT INTO webhook_attempts (webhook_id, record) VALUES (?, ?)');
    for (const a of w.attempts) attempts.run(a.webhook_id, JSON.stringify(a));
  })();
}

/**
 * Imports the JSON state at `legacyPath` into a new database at `dbPath` (which may be the same
 * path: the JSON is moved aside first). The JSON is kept as `<legacyPath>.v1.bak`, with its key
 * file; the database gets `<dbPath>.key`, the same key.
 */
export function importLegacyState(legacyPath: string, dbPath: string): Db {
  const snapshot = readLegacySnapshot(legacyPath);
  const legacyKey = keyPathFor(legacyPath);
  if (!existsSync(legacyKey)) {
    throw new SandboxStartError('key_missing', `state file ${legacyPath} exists but its key file ${legacyKey} is missing, so its sealed balances cannot be read`,
      'restore the key file, or move the state file away to start a fresh sandbox (or use --ephemeral)');
  }
  const backup = `${legacyPath}.v1.bak`;
  renameSync(legacyPath, backup);
  // The backup keeps its key beside it; the database gets the same key under its own name.
  if (keyPathFor(dbPath) === legacyKey) copyFileSync(legacyKey, keyPathFor(backup));
  else {
    renameSync(legacyKey, keyPathFor(backup));
    copyFileSync(keyPathFor(backup), keyPathFor(dbPath));
  }
  let db: Db | undefined;
  try {
    db = openDatabase(dbPath);
    writeSnapshot(db, snapshot);
    return db;
  } catch (err) {
    // Leave things as they were: no half-imported database, the JSON back in its place.
    if (db) closeDatabase(db);
    for (const f of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) rmSync(f, { force: true });
    renameSync(backup, legacyPath);
    if (keyPathFor(dbPath) !== legacyKey) renameSync(keyPathFor(backup), legacyKey);
    throw err;
  }
}
