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
import type { Db } from './db.js';
import type { Statement, Statements } from './statements.js';

/** What the store's domain modules write through. */
export interface Writer {
  /** Runs a writing statement in the current transaction, counting it. */
  run(stmt: Statement, ...params: unknown[]): void;
  /** Memory moved before its row is written (a balance, written just before COMMIT): counted as a write. */
  moved(): void;
  /** Runs `fn` in a transaction of its own, or inside the caller's. */
  tx<T>(fn: () => T): T;
}

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

  constructor(
    private readonly db: Db,
    private readonly stmt: Pick<Statements, 'begin' | 'commit' | 'rollback'>,
    private readonly hooks: TransactionHooks,
  ) {}

  /**
   * Runs `fn` in one transaction (or inside the caller's): it commits when `fn` returns and rolls
   * back when it throws. `fn` must be synchronous, so no other request can interleave.
   */
  tx<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    // A batch still open commits first: this transaction's commit must not carry its writes.
    if (this.batch) this.commitBatch(this.batch);
    this.depth++;
    this.stmt.begin.run();
    const writesBefore = this.writes;
    let result: T;
    try {
      result = fn();
      if (result instanceof Promise) throw new Error('a store transaction must be synchronous');
      this.hooks.beforeCommit();
      this.stmt.commit.run();
    } catch (err) {
      this.depth--;
      this.afterCommit = [];
      this.hooks.afterRollback();
      // Memory changes only together with the rows it mirrors: if no row was written, nothing
      // in memory moved either, and there is nothing to reload.
      const wrote = this.writes !== writesBefore;
      try {
        this.stmt.rollback.run();
      } finally {
        if (wrote) this.hooks.onRollback?.(err);
      }
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
   * batch rolls back) if `fn` throws.
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

  /** Commits the open batch now, if any (before the database closes). */
  commitOpenBatch(): void {
    if (this.batch) this.commitBatch(this.batch);
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

  private openBatch(): Batch {
    this.stmt.begin.run();
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
  private commitBatch(batch: Batch): void {
    if (this.batch !== batch) return; // already committed or rolled back
    try {
      this.hooks.beforeCommit();
      this.stmt.commit.run();
    } catch (err) {
      this.rollbackBatch(batch, err);
      return;
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
  }

  private rollbackBatch(batch: Batch, cause: unknown): void {
    this.batch = undefined;
    this.afterCommit = [];
    this.hooks.afterRollback();
    const wrote = this.writes !== batch.writesBefore;
    try {
      // A failed COMMIT may have ended the transaction already.
      if (this.db.inTransaction) this.stmt.rollback.run();
    } catch (err) {
      this.hooks.onError?.(err); // runs from setImmediate too: nobody else would catch it
    }
    batch.reject(new Error(`rolled back with the batch it was committed in (${(cause as Error)?.message ?? String(cause)})`, { cause }));
    if (wrote) this.hooks.onRollback?.(cause);
  }
}
