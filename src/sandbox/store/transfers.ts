// Transfers in memory: by id, and per account (sent or received) in created_at order, which is
// what a page of GET /v1/transfers walks. Their rows keep creation order in `seq` (the ids are
// random). The Store opens the transaction each change runs in.
import { TransferRecord, type Transfer, type TransferStatus } from '../records.js';
import type { Db } from './db.js';
import { readRecords, type Statements } from './statements.js';
import type { Writer } from './transactions.js';

export interface TransferQuery {
  limit: number;
  offset: number;
  status?: TransferStatus;
  /** Exclusive bounds on created_at, epoch ms. */
  after?: number;
  before?: number;
}

export class Transfers {
  private readonly byId = new Map<string, Transfer>();
  /** Per account: its transfers (sent or received) in creation order, hence created_at order. */
  private readonly byAccount = new Map<string, Transfer[]>();
  /** The next row's place in creation order. */
  private seq = 1;

  constructor(
    private readonly stmt: Statements,
    private readonly writer: Writer,
  ) {}

  get(id: string): Transfer | undefined {
    return this.byId.get(id);
  }

  all(): IterableIterator<Transfer> {
    return this.byId.values();
  }

  /** Transfers still waiting for the chain, in creation order. */
  pending(): Transfer[] {
    const out: Transfer[] = [];
    for (const t of this.byId.values()) if (t.status === 'pending') out.push(t);
    return out;
  }

  countOf(accountId: string): number {
    return this.byAccount.get(accountId)?.length ?? 0;
  }

  add(t: Transfer): void {
    this.writer.run(this.stmt.addTransfer, t.transfer_id, this.seq++, JSON.stringify(t));
    this.index(t);
  }

  settle(t: Transfer, status: 'confirmed' | 'failed', at: number): void {
    t.status = status;
    if (status === 'confirmed') t.confirmed_at = at;
    else t.failed_at = at;
    this.writer.run(this.stmt.putTransfer, JSON.stringify(t), t.transfer_id);
  }

  /**
   * Newest first. Time bounds are found by binary search over the account's list (kept in
   * created_at order); without a status filter a page costs O(limit + log n). A status filter
   * walks the time window from the newest end and stops one match past the page.
   */
  page(accountId: string, q: TransferQuery): { items: Transfer[]; hasMore: boolean } {
    const list = this.byAccount.get(accountId) ?? [];
    const lo = q.after === undefined ? 0 : firstIndexAfter(list, q.after);
    const hi = q.before === undefined ? list.length : firstIndexAtOrAfter(list, q.before);
    const items: Transfer[] = [];
    if (!q.status) {
      const start = hi - 1 - q.offset;
      for (let i = start; i >= lo && items.length < q.limit; i--) items.push(list[i]!);
      return { items, hasMore: hi - lo > q.offset + q.limit };
    }
    let skipped = 0;
    for (let i = hi - 1; i >= lo; i--) {
      const t = list[i]!;
      if (t.status !== q.status) continue;
      if (skipped < q.offset) {
        skipped++;
        continue;
      }
      if (items.length === q.limit) return { items, hasMore: true };
      items.push(t);
    }
    return { items, hasMore: false };
  }

  load(db: Db): void {
    this.clear();
    const transfers = readRecords(db, 'SELECT record FROM transfers ORDER BY seq', TransferRecord);
    this.seq = Number((db.prepare('SELECT coalesce(max(seq), 0) + 1 AS n FROM transfers').get() as { n: number }).n);
    if (!isSortedBy(transfers, (t) => t.created_at)) transfers.sort((a, b) => a.created_at - b.created_at);
    for (const t of transfers) this.index(t);
  }

  clear(): void {
    this.byId.clear();
    this.byAccount.clear();
  }

  private index(t: Transfer): void {
    this.byId.set(t.transfer_id, t);
    this.appendTo(t.from_account_id, t);
    if (t.to_account_id && t.to_account_id !== t.from_account_id) this.appendTo(t.to_account_id, t);
  }

  private appendTo(accountId: string, t: Transfer): void {
    let list = this.byAccount.get(accountId);
    if (!list) this.byAccount.set(accountId, (list = []));
    list.push(t);
  }
}

function isSortedBy<T>(list: readonly T[], by: (v: T) => number): boolean {
  for (let i = 1; i < list.length; i++) if (by(list[i - 1]!) > by(list[i]!)) return false;
  return true;
}

/** First index whose created_at is strictly after t. */
function firstIndexAfter(list: readonly Transfer[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.created_at <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose created_at is at or after t. */
function firstIndexAtOrAfter(list: readonly Transfer[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.created_at < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
