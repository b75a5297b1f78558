// Opening the sandbox database (SQLite through libsql, loaded only when a sandbox starts): the
// file created 0600, one sandbox at a time (a lock file naming the process that holds it), WAL,
// a bounded wait for another program's write lock, and the schema brought up to date by ordered
// migrations. A database from a newer svc is refused, never changed.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'libsql';
import { SandboxStartError } from '../errors.js';
import { MIGRATIONS } from './migrations.js';
import { describeLockHolder, tryLock } from '../../config/config-lock.js';

export type Db = Database.Database;

/** Marks a database as a sandbox's (`PRAGMA application_id`): 'svcS'. */
const APPLICATION_ID = 0x73766353;
const SQLITE_MAGIC = 'SQLite format 3\0';

/** Whether a file is an SQLite database (as opposed to a legacy JSON state file). */
export function isSqliteFile(path: string): boolean {
  try {
    return readFileSync(path).subarray(0, 16).toString('latin1') === SQLITE_MAGIC;
  } catch {
    return false;
  }
}

/** An in-memory database with the current schema (--ephemeral): the same code as a file. */
export function openMemoryDatabase(): Db {
  const db = new Database(':memory:');
  migrate(db, 'the in-memory database');
  return db;
}

/** How each database this process opened gives up its lock file, at close. */
const locks = new WeakMap<Db, () => void>();

/**
 * How long a write waits for SQLite's write lock when another program holds it (the sqlite3
 * shell, a DB browser, a backup) before it fails (a request then answers 503 state_locked).
 * libsql is synchronous: the event loop waits with it, so the bound is short, yet longer than a
 * backup's or a browser's usual hold. Beyond the spec (docs/sandbox.md, "Durable state").
 */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * `<db>.lock` names the sandbox using the database (config-lock.ts: created exclusively, a dead
 * holder's lock taken over through its `.break` step, so two starts never both take it over).
 * It sits beside the real file, so a second sandbox reaching it through a symbolic link (or
 * another path) finds it. (SQLite's own exclusive locking cannot serve: libsql keeps a closed
 * connection's lock until its statements are garbage-collected.)
 */
function acquireLock(realPath: string, shown: string): () => void {
  const lockPath = `${realPath}.lock`;
  const release = tryLock(lockPath);
  if (release) return release;
  const holder = describeLockHolder(lockPath);
  if (holder) {
    throw new SandboxStartError('state_locked', `the sandbox database ${shown} is in use by another sandbox${holder}`,
      'stop the other sandbox first, or give this one another --state (or --ephemeral)');
  }
  throw new SandboxStartError('state_locked', `the sandbox database ${shown} is being opened by another sandbox`, 'try again');
}

/** Closes a database and gives up its lock file. */
export function closeDatabase(db: Db): void {
  try {
    db.close();
  } finally {
    const release = locks.get(db);
    locks.delete(db);
    release?.();
  }
}

export interface OpenOptions {
  /** BUSY_TIMEOUT_MS unless given (tests shorten it). */
  busyTimeoutMs?: number;
}

export function openDatabase(path: string, opts: OpenOptions = {}): Db {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Created 0600 before SQLite opens it (SQLite gives its WAL file the database file's mode),
  // and before the lock: the lock is named after the real file, which must exist to be resolved.
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  const release = acquireLock(realpathSync(path), path);
  chmodSync(path, 0o600);
  const hint = 'move the file away to start a fresh sandbox, or use --ephemeral';
  let db: Db;
  try {
    db = new Database(path);
  } catch (err) {
    release();
    throw new SandboxStartError('state_unreadable', `cannot open the sandbox database ${path}: ${(err as Error).message}`, hint);
  }
  locks.set(db, release);
  try {
    db.exec(`PRAGMA busy_timeout = ${opts.busyTimeoutMs ?? BUSY_TIMEOUT_MS}`);
    db.exec('PRAGMA journal_mode = WAL');
    // WAL + NORMAL: a commit survives a crash of this process; a power loss may lose the last
    // commits but never corrupts the file (docs/sandbox.md).
    db.exec('PRAGMA synchronous = NORMAL');
    // A bigger page cache and fewer, larger checkpoints (each checkpoint syncs the file).
    db.exec('PRAGMA cache_size = -32000');
    db.exec('PRAGMA wal_autocheckpoint = 8000');
    migrate(db, path);
  } catch (err) {
    closeDatabase(db);
    if (err instanceof SandboxStartError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new SandboxStartError('state_locked', `the sandbox database ${path} is in use by another program`, 'stop it first, or give this sandbox another --state (or --ephemeral)');
    }
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      throw new SandboxStartError('state_unreadable', `${path} is not a sandbox database (${(err as Error).message})`, hint);
    }
    throw err;
  }
  return db;
}

/** A numeric pragma's value (libsql ignores better-sqlite3's `simple` option, so read the row). */
function pragmaNumber(db: Db, name: string): number {
  return Number((db.prepare(`PRAGMA ${name}`).get() as Record<string, unknown>)[name]);
}

function tableCount(db: Db): number {
  return Number((db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n);
}

/** Applies the migrations the database has not seen, each in its own transaction. */
function migrate(db: Db, where: string): void {
  const appId = pragmaNumber(db, 'application_id');
  if (appId === 0 && tableCount(db) === 0) db.pragma(`application_id = ${APPLICATION_ID}`);
  else if (appId !== APPLICATION_ID) {
    throw new SandboxStartError('state_unreadable', `${where} is an SQLite database, but not a sandbox's`, 'give the sandbox its own file with --state');
  }
  const version = pragmaNumber(db, 'user_version');
  if (version > MIGRATIONS.length) {
    throw new SandboxStartError(
      'state_too_new',
      `${where} was written by a newer svc (database schema ${version}; this svc knows schemas up to ${MIGRATIONS.length}); it was not changed`,
      'use the svc that wrote it, or move the file away to start a fresh sandbox',
    );
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

/** The schema version this svc writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;
