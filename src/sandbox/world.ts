// Everything a handler may touch, wired once per sandbox: clock, scheduler, store, chain and the
// webhook engine. load() brings a stored world back (or seeds a fresh one); the same path runs
// again if a transaction ever rolls back, so memory always mirrors what was committed. The store
// holds all of the state; the chain and the webhook engine only schedule work from it (resume()).
//
// When the database is locked by another program for longer than the busy timeout, a write of
// the sandbox's own (a settlement, a webhook attempt's record) fails with nothing changed, and
// the task that made it is gone from the scheduler. Such a failure asks for a resync: once a
// write goes through again (the next flush), memory is reloaded and the pending work scheduled
// again from the database, so it is done late, never dropped.
import { CHAIN_ID } from './auth.js';
import { Chain } from './chain.js';
import { SandboxClock } from './clock.js';
import type { Sealer } from './crypto/sealer.js';
import { Scheduler } from './scheduler.js';
import { seedWorld, type SeedResult } from './seed.js';
import { Store } from './store/store.js';
import { StateLockedError } from './store/transactions.js';
import type { Db } from './store/db.js';
import { WebhookEngine, type WebhookEngineOptions } from './webhooks/engine.js';

export interface WorldOptions {
  db: Db;
  blockTimeMs: number;
  approvalWindowMs: number;
  adminToken: string;
  /** A nonce of this start, answered by /_sandbox/health: `sandbox stop` signals only the process that knows it. */
  instance: string;
  sealer: Sealer;
  /** Where errors of the sandbox's own work go: scheduled tasks, flushes, reloads (required: nothing is swallowed). */
  onError: (err: unknown) => void;
  clock?: SandboxClock;
  /** Webhook engine settings (time limit, concurrency, jitter source, log). */
  webhooks?: Partial<WebhookEngineOptions>;
}

/** The clock as stored in `meta`: its offset, and the highest instant handed out. */
const CLOCK_KEY = 'clock';
/** How often what reads leave in memory (key-use counts, balance ciphertexts, the clock's floor) is written. */
const FLUSH_EVERY_MS = 1_000;

export class World {
  readonly chainId = CHAIN_ID;
  readonly clock: SandboxClock;
  readonly scheduler: Scheduler;
  readonly store: Store;
  readonly chain: Chain;
  readonly sealer: Sealer;
  readonly adminToken: string;
  readonly instance: string;
  readonly blockTimeMs: number;
  readonly approvalWindowMs: number;
  /** Event fan-out and signed, retried deliveries (src/sandbox/webhooks/); their state is the store's. */
  readonly webhooks: WebhookEngine;
  /** Where errors go (the log). */
  private readonly report: (err: unknown) => void;
  /** Errors of the sandbox's own work: reported, and a database failure asks for a resync. */
  private readonly onError: (err: unknown) => void;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Work of the sandbox's own failed to be written: reschedule it from the database once writes go through. */
  private resyncWanted = false;
  /** A reload after a rollback failed: memory may not mirror the database until a resync succeeds. */
  private stale = false;
  /** Why the last flush failed (undefined: it did not). */
  private flushFailure: string | undefined;
  /** close() has begun: no more resyncs. */
  private closed = false;

  constructor(opts: WorldOptions) {
    this.report = opts.onError;
    this.onError = (err) => {
      this.report(err);
      if (isDatabaseFailure(err)) this.resyncWanted = true;
    };
    this.clock = opts.clock ?? new SandboxClock();
    this.scheduler = new Scheduler(this.clock, this.onError);
    this.store = new Store(opts.db, opts.sealer, { onRollback: (err) => this.reload(err), onError: this.onError });
    this.sealer = opts.sealer;
    this.adminToken = opts.adminToken;
    this.instance = opts.instance;
    this.blockTimeMs = opts.blockTimeMs;
    this.approvalWindowMs = opts.approvalWindowMs;
    this.chain = new Chain(this.store, this.scheduler, this.sealer, opts.blockTimeMs);
    this.webhooks = new WebhookEngine(
      { store: this.store, scheduler: this.scheduler, clock: this.clock, onError: this.onError },
      opts.webhooks,
    );
  }

  now(): number {
    return this.clock.now();
  }

  /**
   * Loads the stored world into memory and schedules its pending work (settlements, webhook
   * deliveries: overdue ones run at once), or seeds a fresh world into an empty store. Returns
   * what a fresh seed handed out (keys shown once), else nothing.
   */
  load(): SeedResult[] {
    const clock = this.store.meta(CLOCK_KEY);
    if (clock) {
      const { offset_ms, last_now_ms } = JSON.parse(clock) as { offset_ms: number; last_now_ms: number };
      this.clock.restore(offset_ms, last_now_ms);
    }
    if (this.store.isEmpty()) return this.reset();
    this.store.load();
    // Time never runs backwards across restarts, even if the last clock save was lost.
    for (const t of this.store.pendingTransfers()) this.clock.restore(this.clock.offsetMs, t.created_at);
    this.chain.resume();
    this.webhooks.resume();
    return [];
  }

  /** After a rollback: memory is thrown away and read again from the database, and its work scheduled again. */
  private reload(cause: unknown): void {
    this.report(new Error(`a change was rolled back (${(cause as Error)?.message ?? String(cause)}); state reloaded from the database`));
    this.resync();
  }

  private resync(): void {
    this.resyncWanted = false;
    try {
      this.scheduler.clear();
      this.store.load();
      this.chain.resume();
      this.webhooks.resume();
      this.stale = false;
    } catch (err) {
      this.stale = true;
      this.resyncWanted = true; // tried again at the next flush
      this.report(err);
    }
  }

  /** Forgets everything and seeds a fresh world with new keys, in one transaction. The clock keeps its offset. */
  reset(): SeedResult[] {
    this.scheduler.clear();
    const now = this.clock.now();
    return this.store.tx(() => {
      this.store.clear(now);
      return seedWorld(this.store, now);
    });
  }

  /** Writes the clock when it moved (its offset, or the highest instant handed out). */
  saveClock(): void {
    const value = this.clockValue();
    if (value === this.savedClock) return;
    this.store.setMeta(CLOCK_KEY, value);
    this.savedClock = value;
  }
  private savedClock: string | undefined;

  private clockValue(): string {
    return JSON.stringify({ offset_ms: this.clock.offsetMs, last_now_ms: this.clock.lastNowMs });
  }

  /** Writes what reads left in memory; then every second until stop(). */
  startFlushing(everyMs = FLUSH_EVERY_MS): void {
    this.flushTimer = setInterval(() => this.flush({ wait: false }), everyMs);
    this.flushTimer.unref();
  }

  /**
   * Writes what reads left in memory and the clock, in one transaction; then, if work of the
   * sandbox's own failed to be written since, resyncs. The periodic flush does not wait for a
   * write lock another program holds (requests would wait with it): it tries again a second
   * later, with nothing lost meanwhile. Returns why it failed, or undefined.
   */
  flush({ wait = true }: { wait?: boolean } = {}): string | undefined {
    const clock = this.clockValue();
    try {
      this.store.flush({ wait, ...(clock !== this.savedClock ? { meta: { [CLOCK_KEY]: clock } } : {}) });
      this.savedClock = clock;
      this.flushFailure = undefined;
    } catch (err) {
      const why = err instanceof StateLockedError ? 'the database is locked by another program' : ((err as Error)?.message ?? String(err));
      // Said once while the periodic flush keeps failing for the same reason (every second would flood the log).
      if (wait || why !== this.flushFailure) {
        this.report(new Error(`could not save key-use statistics, balance ciphertexts and the clock (${why})${wait ? '' : '; trying again every second'}`));
      }
      this.flushFailure = why;
      return why;
    }
    if (this.resyncWanted && !this.closed) this.resyncIfWritable(wait);
    return undefined;
  }

  /** Resyncs once a write goes through again (an empty transaction here), or the work would fail again at once. */
  private resyncIfWritable(wait: boolean): void {
    try {
      this.store.tx(() => {}, { wait }); // also commits an open batch: none is open when memory is reloaded
    } catch {
      return; // still locked: the next flush tries again
    }
    this.resync();
  }

  /** Stops timers and closes the store (after a last flush); returns what could not be saved (empty: everything). */
  close(): string[] {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.scheduler.stop();
    this.closed = true;
    const unsaved: string[] = [];
    const failed = this.flush();
    if (failed !== undefined) unsaved.push(`key-use statistics, balance ciphertexts and the clock of the last reads (${failed})`);
    if (this.stale) unsaved.push('memory could not be reloaded after a rollback: what the sandbox showed since may not be in the database');
    unsaved.push(...this.store.close());
    return unsaved;
  }
}

/** An error of the database (a lock another program held, a failed write), as opposed to one of a receiver or a bug. */
function isDatabaseFailure(err: unknown): boolean {
  return err instanceof StateLockedError || /^SQLITE_/.test(String((err as { code?: unknown })?.code ?? ''));
}
