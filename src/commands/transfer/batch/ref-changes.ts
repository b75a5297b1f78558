// A row whose ref was added or taken away since an earlier run has a new identity (its ref, or
// what it pays): left alone, it would look new and be paid a second time. So a row with no
// accepted entry of its own is matched by what it pays against the accepted rows of the other
// kind that no row of the file still claims as its own: a row that now has a ref, against rows
// sent without one (beyond the identical rows without a ref the file still has); a row without
// a ref, against rows sent under a ref the file no longer holds. Each earlier row is claimed once,
// in file order. Which rows those are is known at the end of the first read (how many identical
// rows, which refs): the first read collects the few candidates, resolve() decides for both reads.
import { isContentRowId } from './identity.js';
import { isAccepted, type JournalEntry } from './journal.js';
import type { PlannedRow } from './plan.js';

/** An accepted entry that answers for a row, and how the row came to differ from it. */
export interface Earlier {
  entry: JournalEntry;
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
  /** Accepted entries by content: those of rows without a ref, and those of rows with one (built when first needed). */
  private pools: Map<string, { plain: JournalEntry[]; withRef: JournalEntry[] }> | undefined;
  private readonly candidates: Candidate[] = [];
  private readonly refIds = new Set<string>();
  private readonly matched = new Map<number, Earlier>();

  constructor(private readonly last: ReadonlyMap<string, JournalEntry>) {}

  /** First read, each valid row: `own` is its accepted entry, if any. Returns whether it may yet match another's. */
  note(row: PlannedRow, own: JournalEntry | undefined): boolean {
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
    const taken = new Set<JournalEntry>();
    const matched: Array<{ asset: string; units: bigint }> = [];
    for (const c of this.candidates) {
      const pool = this.poolsOf().get(c.content)!;
      const free = c.withRef
        ? pool.plain.find((e) => !taken.has(e) && slotOf(e.row) > plainCount(c.content))
        : pool.withRef.find((e) => !taken.has(e) && !this.refIds.has(e.row));
      if (!free) continue;
      taken.add(free);
      this.matched.set(c.line, { entry: free, via: c.withRef ? 'ref_added' : 'ref_removed' });
      matched.push({ asset: c.asset, units: c.units });
    }
    this.candidates.length = 0;
    return matched;
  }

  private poolsOf(): Map<string, { plain: JournalEntry[]; withRef: JournalEntry[] }> {
    if (this.pools) return this.pools;
    this.pools = new Map();
    for (const e of this.last.values()) {
      if (!isAccepted(e) || e.content === undefined) continue;
      let pool = this.pools.get(e.content);
      if (!pool) this.pools.set(e.content, (pool = { plain: [], withRef: [] }));
      (isContentRowId(e.row) ? pool.plain : pool.withRef).push(e);
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
