// Everything a handler may touch, wired once per sandbox: clock, scheduler, store, chain and the
// webhook engine. load() brings a stored world back (or seeds a fresh one); the same path runs
// again if a transaction ever rolls back, so memory always mirrors what was committed. The store
// holds all of the state; the chain and the webhook engine only schedule work from it (resume()).
import { CHAIN_ID } from './auth.js';
import { Chain } from './chain.js';
import { SandboxClock } from './clock.js';
import type { Sealer } from './crypto/sealer.js';
import { Scheduler } from './scheduler.js';
import { seedWorld, type SeedResult } from './seed.js';
import { Store } from './store/store.js';
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
  private readonly onError: (err: unknown) => void;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(opts: WorldOptions) {
    this.onError = opts.onError;
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
    this.onError(new Error(`a change was rolled back (${(cause as Error)?.message ?? String(cause)}); state reloaded from the database`));
    try {
      this.scheduler.clear();
      this.store.load();
      this.chain.resume();
      this.webhooks.resume();
    } catch (err) {
      this.onError(err);
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
    const value = JSON.stringify({ offset_ms: this.clock.offsetMs, last_now_ms: this.clock.lastNowMs });
    if (value === this.savedClock) return;
    this.store.setMeta(CLOCK_KEY, value);
    this.savedClock = value;
  }
  private savedClock: string | undefined;

  /** Writes what reads left in memory; then every second until stop(). */
  startFlushing(everyMs = FLUSH_EVERY_MS): void {
    this.flushTimer = setInterval(() => this.flush(), everyMs);
    this.flushTimer.unref();
  }

  flush(): void {
    try {
      this.store.flush();
      this.saveClock();
    } catch (err) {
      this.onError(err);
    }
  }

  /** Stops timers and closes the store (after a last flush). */
  close(): void {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.scheduler.stop();
    this.flush();
    this.store.close();
  }
}
