// Idempotency records: the first answer to each (scope, Idempotency-Key), kept for a day on the
// sandbox clock. Memory keeps them in creation order, so the expired ones are at the front and a
// save drops them as it goes. The Store opens the transaction each change runs in.
import { IdempotencyRecord } from '../records.js';
import type { Db } from './db.js';
import { readRecords, type Statements } from './statements.js';
import type { Writer } from './transactions.js';

/** How long an Idempotency-Key is remembered, on the sandbox clock. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export class IdempotencyRecords {
  /** In insertion (= creation time) order, so expired records are at the front. */
  private readonly byKey = new Map<string, IdempotencyRecord>();

  constructor(
    private readonly stmt: Statements,
    private readonly writer: Writer,
  ) {}

  /** The record if it is still remembered at `now`. */
  get(scope: string, key: string, now: number): IdempotencyRecord | undefined {
    const r = this.byKey.get(idemKey(scope, key));
    return r && now - r.created_at < IDEMPOTENCY_TTL_MS ? r : undefined;
  }

  all(): IterableIterator<IdempotencyRecord> {
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
    this.byKey.set(k, record);
    this.writer.run(this.stmt.putIdempotency, record.scope, record.key, record.created_at, JSON.stringify(record));
  }

  load(db: Db): void {
    this.clear();
    for (const r of readRecords(db, 'SELECT record FROM idempotency ORDER BY created_at', IdempotencyRecord)) {
      this.byKey.set(idemKey(r.scope, r.key), r);
    }
  }

  clear(): void {
    this.byKey.clear();
  }
}

function idemKey(scope: string, key: string): string {
  return `${scope}\u0000${key}`;
}
