// Transactions and group commit. Every change of the store runs in a transaction (joining the
// caller's when there is one), so one request's effects commit together or not at all, before
// its answer is written. A rollback after a write tells the store to reload memory from the
// database (onRollback), since memory changes together with the rows it mirrors.
//
// Group commit, and why: a commit costs about as much as all the statements of a request
// together (it appends the changed pages to the WAL), so under load the sandbox spent most of its
// database time committing. Requests that change something therefore commit in batches: the
// first one in an event-loop turn opens a transaction, every other one that runs in the same turn
// joins it, and the batch commits once the turn has taken in every request that was ready
// (setImmediate).
//
// What keeps "an answered write is on disk": no answer of a batch leaves before its COMMIT has
// returned (txGrouped resolves only then; reads wait on committed(), since they may show the
// batch's writes). A batch fails as a whole: when a request in it throws (an internal error) or
// the COMMIT fails, everything in it rolls back, memory is reloaded from the database, and every
// request of the batch answers 500 (not remembered for idempotency, so a retry runs again).
// Requests still run one at a time, each on the state the previous ones left (a balance
// reserved by one is gone for the next), exactly as with a transaction each.
//
// When another program holds the database's write lock (the sqlite3 shell, a backup), BEGIN
// waits up to the busy timeout (db.ts) and then fails with StateLockedError: nothing was begun,
// nothing changed, and the next transaction begins afresh (503 state_locked for a request).
// BEGIN, COMMIT and ROLLBACK run through exec(), never as prepared statements: libsql leaves a
// prepared statement that failed with SQLITE_BUSY in progress, and while it is, nothing the
// connection writes afterwards is ever committed.
import type { Db } from './db.js';
import type { Statement } from './statements.js';

/** What the store's domain modules write through. */
export interface Writer {
  /** Runs a writing statement in the current transaction, counting it. */
  run(stmt: Statement, ...params: unknown[]): void;
  /** Memory moved before its row is written (a balance, written just before COMMIT): counted as a write. */
  moved(): void;
  /** Runs `fn` in a transaction of its own, or inside the caller's. */
  tx<T>(fn: () => T, opts?: TxOptions): T;
  /** Runs `fn` once the current transaction has committed (at once outside one). */
  onCommit(fn: () => void): void;
}

export interface TxOptions {
  /** false: fail at once when another program holds the write lock (the periodic flush: it tries again a second later). */
  wait?: boolean;
  /**
   * What `fn` writes is already in memory and stays right if it is not saved (the flush of key-use
   * counts): a rollback does not reload memory.
   */
  memoryAhead?: boolean;
}

/** The database's write lock is held by another program: nothing was begun, nothing changed (a request answers 503 state_locked). */
export class StateLockedError extends Error {
  readonly code = 'state_locked';
  constructor(cause: unknown) {
    super('the sandbox database is locked by another program (the sqlite3 shell, a backup?); nothing was changed: try again', { cause });
    this.name = 'StateLockedError';
  }
}

const isBusy = (err: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(String((err as { code?: unknown })?.code ?? ''));

export interface TransactionHooks {
  /** Writes what waits for the end of a transaction (changed balances), just before its COMMIT. */
  beforeCommit(): void;
  /** Forgets what waited, after a rollback. */
  afterRollback(): void;
  /** Called after a rollback that followed a write: memory no longer matches the database. */
  onRollback?: (err: unknown) => void;
  /** Errors of what runs after a batch commits (nobody else would see them). */
  onError?: (err: unknown) => void;
}

/** A group commit: the transaction shared by the changing requests of one event-loop turn. */
interface Batch {
  /** Settles when the batch commits, or rejects when it rolls back. */
  done: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
  /** The write count when it began (a rollback reloads memory only if something was written). */
  writesBefore: number;
}

const COMMITTED = Promise.resolve();

export class Transactions implements Writer {
  private depth = 0;
  private afterCommit: Array<() => void> = [];
  private batch: Batch | undefined;
  /** Writes so far: a rollback reloads memory only if it rolled one back. */
  private writes = 0;
  /** The database's busy timeout (db.ts), read when first needed. */
  private busyTimeoutMs: number | undefined;
  /** A wait for the write lock ran out in this event-loop turn. */
  private lockSeenHeld = false;

  constructor(
    private readonly db: Db,
    private readonly hooks: TransactionHooks,
  ) {}

  /**
   * Runs `fn` in one transaction (or inside the caller's): it commits when `fn` returns and rolls
   * back when it throws. `fn` must be synchronous, so no other request can interleave. Throws
   * StateLockedError, without running `fn`, when the write lock cannot be had.
   */
  tx<T>(fn: () => T, opts: TxOptions = {}): T {
    if (this.depth > 0) return fn();
    // A batch still open commits first: this transaction's commit must not carry its writes.
    if (this.batch) this.commitBatch(this.batch);
    this.begin(opts.wait ?? true); // throws with nothing begun: depth is raised only once it has
    this.depth++;
    const writesBefore = this.writes;
    let result: T;
    try {
      result = fn();
      if (result instanceof Promise) throw new Error('a store transaction must be synchronous');
      this.hooks.beforeCommit();
      this.db.exec('COMMIT');
    } catch (err) {
      this.depth--;
      this.afterCommit = [];
      this.hooks.afterRollback();
      this.rollback();
      // Memory changes only together with the rows it mirrors: if no row was written, nothing
      // in memory moved either, and there is nothing to reload.
      if (this.writes !== writesBefore && !opts.memoryAhead) this.hooks.onRollback?.(err);
      throw err;
    }
    this.depth--;
    const after = this.afterCommit;
    this.afterCommit = [];
    for (const fn of after) fn();
    return result;
  }

  /**
   * Runs `fn` (synchronous) in the batch of this event-loop turn, opening it if needed. Resolves
   * with its result once the batch has committed, rejects if the batch fails; throws (and the
   * batch rolls back) if `fn` throws. Throws StateLockedError, without running `fn`, when no batch
   * is open and the write lock cannot be had.
   */
  txGrouped<T>(fn: () => T): Promise<T> {
    if (this.depth > 0) return Promise.resolve(fn()); // inside a transaction already: part of it
    const batch = this.batch ?? this.openBatch();
    this.depth++;
    let result: T;
    try {
      result = fn();
      if (result instanceof Promise) throw new Error('a store transaction must be synchronous');
    } catch (err) {
      this.depth--;
      this.rollbackBatch(batch, err);
      throw err;
    }
    this.depth--;
    return batch.done.then(() => result);
  }

  /**
   * Settles once every write made so far is committed: at once when no batch is open, else when
   * the open batch commits; rejects if it rolls back instead.
   */
  committed(): Promise<void> {
    return this.batch?.done ?? COMMITTED;
  }

  /** Whether a batch is open (its writes are in the database's transaction, not yet committed). */
  get batchOpen(): boolean {
    return this.batch !== undefined;
  }

  /** Commits the open batch now, if any (before the database closes); false if it rolled back instead. */
  commitOpenBatch(): boolean {
    return this.batch ? this.commitBatch(this.batch) : true;
  }

  /** Runs `fn` once the current transaction has committed (at once outside one). */
  onCommit(fn: () => void): void {
    if (this.depth > 0) this.afterCommit.push(fn);
    else fn();
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  run(stmt: Statement, ...params: unknown[]): void {
    this.writes++;
    stmt.run(...params);
  }

  moved(): void {
    this.writes++;
  }

  /**
   * BEGIN IMMEDIATE: the write lock now, waiting up to the busy timeout for it (or not at all).
   * Once a wait has run out, the writes of the same event-loop turn (the settlements due at one
   * instant, the requests read together) try once without waiting again: one wait per turn, not
   * one per write, keeps the event loop's stall to the busy timeout.
   */
  private begin(wait: boolean): void {
    const waiting = wait && !this.lockSeenHeld;
    try {
      if (waiting) this.db.exec('BEGIN IMMEDIATE');
      else this.withoutWaiting(() => this.db.exec('BEGIN IMMEDIATE'));
    } catch (err) {
      if (this.db.inTransaction) this.rollback(); // never left half-open
      if (!isBusy(err)) throw err;
      if (waiting) {
        this.lockSeenHeld = true;
        setImmediate(() => (this.lockSeenHeld = false));
      }
      throw new StateLockedError(err);
    }
  }

  private withoutWaiting(fn: () => void): void {
    this.busyTimeoutMs ??= Number((this.db.prepare('PRAGMA busy_timeout').get() as { timeout?: unknown }).timeout) || 0;
    this.db.exec('PRAGMA busy_timeout = 0');
    try {
      fn();
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`);
    }
  }

  /** Ends a failed transaction, if the failure left one open (a failed COMMIT may have ended it). */
  private rollback(): void {
    if (!this.db.inTransaction) return;
    try {
      this.db.exec('ROLLBACK');
    } catch (err) {
      this.hooks.onError?.(err); // nobody else would see it; the caller reports the first failure
    }
  }

  private openBatch(): Batch {
    this.begin(true);
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    done.catch(() => {}); // a batch nobody waits for (only the sandbox's own work) fails quietly
    const batch: Batch = { done, resolve, reject, writesBefore: this.writes };
    this.batch = batch;
    setImmediate(() => this.commitBatch(batch));
    return batch;
  }

  /** Commits a batch (at the end of its turn, or earlier: before another transaction, at close). */
  private commitBatch(batch: Batch): boolean {
    if (this.batch !== batch) return true; // already committed or rolled back
    try {
      this.hooks.beforeCommit();
      this.db.exec('COMMIT');
    } catch (err) {
      this.rollbackBatch(batch, err);
      return false;
    }
    this.batch = undefined;
    batch.resolve();
    const after = this.afterCommit;
    this.afterCommit = [];
    for (const fn of after) {
      try {
        fn();
      } catch (err) {
        this.hooks.onError?.(err);
      }
    }
    return true;
  }

  private rollbackBatch(batch: Batch, cause: unknown): void {
    this.batch = undefined;
    this.afterCommit = [];
    this.hooks.afterRollback();
    const wrote = this.writes !== batch.writesBefore;
    this.rollback();
    batch.reject(new Error(`rolled back with the batch it was committed in (${(cause as Error)?.message ?? String(cause)})`, { cause }));
    if (wrote) this.hooks.onRollback?.(cause);
  }
}
