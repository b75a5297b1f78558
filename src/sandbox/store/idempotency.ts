// Idempotency records: the first answer to each (scope, Idempotency-Key), kept for a day on the
// sandbox clock. Memory keeps what a new request is checked against (the request's hash, the
// status, when), in creation order, so the expired ones are at the front and a save drops them as
// it goes; the answer itself (hundreds of bytes a request, read only by a replay) stays in the
// database row, which a replay reads. The Store opens the transaction each change runs in.
import { IdempotencyRecord } from '../records.js';
import type { Db } from './db.js';
import { readRecords, type Statements } from './statements.js';
import type { Writer } from './transactions.js';

/** How long an Idempotency-Key is remembered, on the sandbox clock. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What memory keeps of a record: all but the answer. */
export type IdempotencyEntry = Pick<IdempotencyRecord, 'scope' | 'key' | 'request_hash' | 'status' | 'created_at'>;

export class IdempotencyRecords {
  /** In insertion (= creation time) order, so expired records are at the front. */
  private readonly byKey = new Map<string, IdempotencyEntry>();

  constructor(
    private readonly stmt: Statements,
    private readonly writer: Writer,
  ) {}

  /** The record's entry if it is still remembered at `now`. */
  get(scope: string, key: string, now: number): IdempotencyEntry | undefined {
    const r = this.byKey.get(idemKey(scope, key));
    return r && now - r.created_at < IDEMPOTENCY_TTL_MS ? r : undefined;
  }

  /**
   * The whole record of an entry, answer included, from its row (in the current transaction, so
   * a record saved earlier in an open batch is found too).
   */
  record(entry: IdempotencyEntry): IdempotencyRecord {
    const row = this.stmt.getIdempotency.get(entry.scope, entry.key) as { record: string } | undefined;
    if (!row) throw new Error(`the idempotency record of ${entry.key} is missing from the database`);
    return IdempotencyRecord.parse(JSON.parse(row.record));
  }

  all(): IterableIterator<IdempotencyEntry> {
    return this.byKey.values();
  }

  /** Saves a record, dropping those that expired by its creation time. */
  save(record: IdempotencyRecord): void {
    for (const [k, r] of this.byKey) {
      if (record.created_at - r.created_at < IDEMPOTENCY_TTL_MS) break;
      this.byKey.delete(k);
      this.writer.run(this.stmt.dropIdempotency, r.scope, r.key);
    }
    const k = idemKey(record.scope, record.key);
    this.byKey.delete(k); // re-insert at the end to keep time order
    this.byKey.set(k, entryOf(record));
    this.writer.run(this.stmt.putIdempotency, record.scope, record.key, record.created_at, JSON.stringify(record));
  }

  load(db: Db): void {
    this.clear();
    for (const r of readRecords(db, 'SELECT record FROM idempotency ORDER BY created_at', IdempotencyRecord)) {
      this.byKey.set(idemKey(r.scope, r.key), entryOf(r));
    }
  }

  clear(): void {
    this.byKey.clear();
  }
}

function entryOf(r: IdempotencyRecord): IdempotencyEntry {
  return { scope: r.scope, key: r.key, request_hash: r.request_hash, status: r.status, created_at: r.created_at };
}

function idemKey(scope: string, key: string): string {
  return `${scope}\u0000${key}`;
}
