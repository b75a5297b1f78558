// API keys in memory, found by id and by the hash of the key, and their rows. Counting a key's
// use changes memory only (a read stays a read); writeUse() saves the counts, every second.
import { ApiKeyRecord } from '../records.js';
import type { Db } from './db.js';
import { readRecords, type Statements } from './statements.js';
import type { Writer } from './transactions.js';

export class ApiKeyIndex {
  private readonly byId = new Map<string, ApiKeyRecord>();
  private readonly byHash = new Map<string, ApiKeyRecord>();
  /** Keys whose use statistics are not written yet. */
  private readonly used = new Set<ApiKeyRecord>();

  constructor(
    private readonly stmt: Statements,
    private readonly writer: Writer,
  ) {}

  get(id: string): ApiKeyRecord | undefined {
    return this.byId.get(id);
  }

  withHash(hash: string): ApiKeyRecord | undefined {
    return this.byHash.get(hash);
  }

  all(): IterableIterator<ApiKeyRecord> {
    return this.byId.values();
  }

  add(record: ApiKeyRecord): void {
    this.writer.run(this.stmt.putKey, record.key_id, JSON.stringify(record));
    this.byId.set(record.key_id, record);
    this.byHash.set(record.hash, record);
  }

  /** Counts one authenticated request, in memory. */
  recordUse(key: ApiKeyRecord, at: number): void {
    key.last_used_at = at;
    key.request_count++;
    this.used.add(key);
  }

  revoke(key: ApiKeyRecord, at: number): void {
    key.revoked_at = at;
    this.writer.run(this.stmt.putKey, key.key_id, JSON.stringify(key));
  }

  get hasUnsavedUse(): boolean {
    return this.used.size > 0;
  }

  /** Writes the use statistics counted since the last time; they count as saved once committed (a failed flush tries again). */
  writeUse(): void {
    const written = [...this.used];
    for (const k of written) this.writer.run(this.stmt.putKey, k.key_id, JSON.stringify(k));
    this.writer.onCommit(() => {
      for (const k of written) this.used.delete(k);
    });
  }

  load(db: Db): void {
    this.clear();
    for (const k of readRecords(db, 'SELECT record FROM api_keys ORDER BY rowid', ApiKeyRecord)) {
      this.byId.set(k.key_id, k);
      this.byHash.set(k.hash, k);
    }
  }

  clear(): void {
    this.byId.clear();
    this.byHash.clear();
    this.used.clear();
  }
}
