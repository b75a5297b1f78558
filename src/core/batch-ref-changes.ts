// A row whose ref was added or taken away since an earlier run has a new identity (its ref, or
// what it pays): left alone, it would look new and be paid a second time. So a row with no
// accepted entry of its own is matched by what it pays against the accepted rows of the other
// kind that no row of the file still claims as its own: a row that now has a ref, against rows
// sent without one (beyond the identical rows without a ref the file still has); a row without
// a ref, against rows sent under a ref the file no longer holds. Each earlier row is claimed once,
// in file order. Which rows those are is known at the end of the first read (how many identical
// rows, which refs): the first read collects the few candidates, resolve() decides for both reads.
import { isContentRowId, type PlannedRow } from './batch-identity.js';
import type { RowRecord } from './batch-book.js';

/** An accepted row that answers for a row, and how the row came to differ from it. */
export interface Earlier {
  entry: RowRecord;
  /** Set when the entry is another row's: the row has gained or lost its ref since. */
  via?: 'ref_added' | 'ref_removed';
}

interface Candidate {
  line: number;
  content: string;
  withRef: boolean;
  asset: string;
  units: bigint;
}

export class RefChanges {
  /** Accepted rows by content: those without a ref, and those with one (built when first needed). */
  private pools: Map<string, { plain: RowRecord[]; withRef: RowRecord[] }> | undefined;
  private readonly candidates: Candidate[] = [];
  private readonly refIds = new Set<string>();
  private readonly matched = new Map<number, Earlier>();

  constructor(private readonly accepted: () => Iterable<RowRecord>) {}

  /** First read, each valid row: `own` is its accepted entry, if any. Returns whether it may yet match another's. */
  note(row: PlannedRow, own: RowRecord | undefined): boolean {
    const withRef = !isContentRowId(row.rowId);
    if (withRef) this.refIds.add(row.rowId);
    // A rerun where every row has its own entry (the common case) never builds the pools.
    if (own || !this.poolsOf().has(row.content)) return false;
    this.candidates.push({ line: row.line, content: row.content, withRef, asset: row.req.asset, units: row.units });
    return true;
  }

  /**
   * End of the first read: which candidates an earlier row answers for. `plainCount` is how many
   * rows without a ref of each content the file has (they hold slots 1..n as their own).
   * Returns the matched rows' amounts, to take off the totals to send.
   */
  resolve(plainCount: (content: string) => number): Array<{ asset: string; units: bigint }> {
    const taken = new Set<RowRecord>();
    const matched: Array<{ asset: string; units: bigint }> = [];
    for (const c of this.candidates) {
      const pool = this.poolsOf().get(c.content)!;
      const free = c.withRef
        ? pool.plain.find((e) => !taken.has(e) && slotOf(e.line.row) > plainCount(c.content))
        : pool.withRef.find((e) => !taken.has(e) && !this.refIds.has(e.line.row));
      if (!free) continue;
      taken.add(free);
      this.matched.set(c.line, { entry: free, via: c.withRef ? 'ref_added' : 'ref_removed' });
      matched.push({ asset: c.asset, units: c.units });
    }
    this.candidates.length = 0;
    return matched;
  }

  private poolsOf(): Map<string, { plain: RowRecord[]; withRef: RowRecord[] }> {
    if (this.pools) return this.pools;
    this.pools = new Map();
    for (const e of this.accepted()) {
      const content = e.line.content;
      if (content === undefined) continue;
      let pool = this.pools.get(content);
      if (!pool) this.pools.set(content, (pool = { plain: [], withRef: [] }));
      (isContentRowId(e.line.row) ? pool.plain : pool.withRef).push(e);
    }
    return this.pools;
  }

  /** Second read: the earlier row that answers for this one, if another's. */
  of(row: PlannedRow): Earlier | undefined {
    return this.matched.get(row.line);
  }
}

/** The n of `row-<content>-<n>`. */
function slotOf(rowId: string): number {
  return Number(rowId.slice(rowId.lastIndexOf('-') + 1));
}
