// Opening the amounts (and memos) of a listing's transfers, a page at a time, in order: on this
// thread for a short list; spread over worker threads (crypto/open-pool.ts) once a list has shown
// it is long, since starting them costs about as much as opening a few hundred rows here.
//
// Whatever the thread, a row comes out as LocalReader would make it here: the same amount
// formatting, and any ciphertext a worker could not handle cleanly (anything but "opens" or
// "does not open") is opened again on this thread, so that it fails exactly as it always did.
import type { Transfer } from '../../api/schemas.js';
import type { OpenPool } from '../../crypto/open-pool.js';
import type { LocalReader } from '../../crypto/reader.js';
import type { DecryptionKey } from '../../crypto/viewing-key.js';
import { DEFAULT_ASSET } from '../../domain/assets.js';
import type { Opened } from './decrypt.js';
import { mapInTurns } from './paging.js';

/**
 * Rows with a ciphertext opened on this thread before worker threads are started for the rest of
 * a list (when more pages follow): a list of ten pages or fewer never starts one. Pages are still
 * opened here until a worker is ready, so a list that ends soon after pays only their start-up
 * on the other cores (docs/performance-lists.md, "Long lists").
 */
export const WORKERS_AFTER = 1000;
/** Workers at most, however many CPUs: the main thread pages and writes meanwhile. */
export const MAX_WORKERS = 4;

export interface OpenerOptions {
  /** Open memos too (--decrypt); otherwise amounts only (a table's AMOUNT column). */
  memo: boolean;
  /** The decryption key, for the workers (the reader's own, loaded once). */
  key: () => Promise<DecryptionKey | undefined>;
  /** Told once, at the end, how many ciphertexts each thread opened, when workers were started (--verbose). */
  trace?: ((line: string) => void) | undefined;
}

const REDO = 0; // open-pool.ts's REDO, without loading that module to compare with it

export class TransferOpener {
  /** Rows with a ciphertext opened so far (on any thread). */
  private seen = 0;
  private pool: OpenPool | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;
  /** Ciphertexts opened on this thread (tests count them; the workers' are in perWorker). */
  onThisThread = 0;

  constructor(
    private readonly reader: LocalReader,
    private readonly opts: OpenerOptions,
  ) {}

  /** Whether pages go to workers: then the caller can have the next page opened while it writes one. */
  get parallel(): boolean {
    return Boolean(this.pool?.ready);
  }

  /** Ciphertexts handed to each worker. */
  get perWorker(): number[] {
    return this.pool?.given ?? [];
  }

  /**
   * The opened amount (and memo) of each transfer, in the order given. `more`: whether pages follow
   * this one (a list that ends here never starts workers).
   */
  async open(items: readonly Transfer[], more: boolean | undefined): Promise<Opened[]> {
    if (!this.starting && more && this.seen >= WORKERS_AFTER) this.starting = this.startPool();
    for (const t of items) if (this.sealed(t)) this.seen++;
    // Until a worker is ready (tens of milliseconds after the start), pages are opened here.
    if (this.pool?.ready) return this.viaPool(this.pool, items);
    return mapInTurns(items, (t) => ({ amount: this.amountHere(t) ?? null, memo: this.memoHere(t) ?? null }));
  }

  /** Ends the workers (a listing that stops early, or fails, too). */
  async close(): Promise<void> {
    this.closed = true;
    await this.starting;
    const pool = this.pool;
    if (!pool) return;
    // Started, so let them finish starting (a worker that fails to is told, not cut short).
    const ready = await pool.whenReady();
    const onWorkers = pool.given.reduce((a, b) => a + b, 0);
    await pool.close();
    this.opts.trace?.(ready
      ? `opened ${this.onThisThread} ciphertexts on this thread and ${onWorkers} on ${pool.given.length} worker threads`
      : `opened every ciphertext on this thread: the worker threads did not start`);
  }

  private sealed(t: Transfer): boolean {
    return Boolean(t.amount_ciphertext || (this.opts.memo && t.memo_ciphertext));
  }

  private amountHere(t: Transfer): string | undefined {
    if (!t.amount_ciphertext) return undefined;
    this.onThisThread++;
    return this.reader.transferAmount(t.transfer_id, t.asset ?? DEFAULT_ASSET, t.amount_ciphertext);
  }

  private memoHere(t: Transfer): string | undefined {
    if (!this.opts.memo || !t.memo_ciphertext) return undefined;
    this.onThisThread++;
    return this.reader.transferMemo(t.transfer_id, t.memo_ciphertext);
  }

  private async viaPool(pool: OpenPool, items: readonly Transfer[]): Promise<Opened[]> {
    const pairs: Array<[string, string]> = [];
    for (const t of items) {
      if (!this.sealed(t)) continue;
      const contexts = this.reader.transferContexts(t.transfer_id);
      if (t.amount_ciphertext) pairs.push([t.amount_ciphertext, contexts.amount]);
      if (this.opts.memo && t.memo_ciphertext) pairs.push([t.memo_ciphertext, contexts.memo]);
    }
    const out = await pool.open(pairs);
    // A page opened ahead of a listing that has ended (failed, or a reader gone): nobody will read it.
    if (this.closed) return [];
    let k = 0;
    // In row order, amount before memo, as on this thread: the first row that fails fails first.
    return items.map((t) => {
      let amount: string | undefined;
      let memo: string | undefined;
      if (t.amount_ciphertext) {
        const r = out[k++]!;
        amount = r === REDO ? this.amountHere(t) : r === null ? undefined : this.reader.amountOf(r, t.asset ?? DEFAULT_ASSET);
      }
      if (this.opts.memo && t.memo_ciphertext) {
        const r = out[k++]!;
        memo = r === REDO ? this.memoHere(t) : (r ?? undefined);
      }
      return { amount: amount ?? null, memo: memo ?? null };
    });
  }

  /** Starts the workers (none on a single CPU); pages go to them once one is ready. */
  private async startPool(): Promise<void> {
    try {
      const size = Math.min(process.getBuiltinModule('node:os').availableParallelism(), MAX_WORKERS);
      if (size < 2) return; // one CPU: a worker would only take turns with this thread
      const [key, { OpenPool }] = await Promise.all([this.opts.key(), import('../../crypto/open-pool.js')]);
      if (!key || this.closed) return;
      this.pool = OpenPool.start({ key: key.keyObject, publicKey: key.publicKey, size });
    } catch {
      // No workers: every row is opened on this thread, as for a short list.
    }
  }
}
