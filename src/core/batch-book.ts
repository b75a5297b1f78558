// A batch's view of the ledger: its runs, its instances (--new-batch) and, per row, what the row's
// keys did, folded by the one merge rule (ledger/fold.ts) over every generation of its key. A
// row accepted under any key is done for good in its instance: no refusal met later moves it to
// a new key. What an older svc's batch journal recorded is read with it (ledger/legacy.ts).
import type { BatchLine, RowLine } from './ledger/lines.js';
import { foldKey, STATUS_RANK, type KeyRecord } from './ledger/fold.js';
import { Ledger, type LedgerClocks, type LedgerScope } from './ledger/ledger.js';
import { legacyBatchLines } from './ledger/legacy.js';

/** What a row's keys did: the furthest along of them (any accepted one; else an unknown one; else the latest). */
export type RowRecord = KeyRecord<RowLine>;

export const isAccepted = (r: RowRecord | undefined): r is RowRecord => r?.status === 'accepted';

/** Folds a row's lines: one record per key, then the row's. */
export function foldRow(lines: readonly RowLine[]): RowRecord | undefined {
  const byKey = new Map<string, RowLine[]>();
  for (const l of lines) {
    const list = byKey.get(l.key);
    if (list) list.push(l);
    else byKey.set(l.key, [l]);
  }
  let best: RowRecord | undefined;
  for (const group of byKey.values()) {
    const r = foldKey(group);
    if (!r) continue;
    // Past `unknown` every key counts the same; among refusals the latest generation leads.
    const better = !best || STATUS_RANK[r.status] > STATUS_RANK[best.status] || (STATUS_RANK[r.status] === STATUS_RANK[best.status] && r.status !== 'accepted' && r.status !== 'unknown' && r.line.gen > best.line.gen);
    if (better) best = r;
  }
  return best;
}

export class BatchBook {
  readonly instance: string;
  /** The rows of the instance this run sends in. */
  private readonly rows = new Map<string, RowLine[]>();
  /** With --new-batch: the rows of the instance it replaces. */
  private readonly replaced = new Map<string, RowLine[]>();
  private readonly marks: BatchLine[] = [];
  private marked: boolean;

  private constructor(
    private readonly ledger: Ledger,
    readonly batch: string,
    newInstance: string | undefined,
  ) {
    let current = '';
    const byInstance = new Map<string, Map<string, RowLine[]>>();
    for (const l of ledger.lines()) {
      if (l.op === 'batch' && l.batch === batch) {
        if (l.event === 'instance' && l.instance !== undefined) current = l.instance;
        this.marks.push(l);
      } else if (l.op === 'row' && l.batch === batch) {
        const inst = l.instance ?? '';
        let rows = byInstance.get(inst);
        if (!rows) byInstance.set(inst, (rows = new Map()));
        const list = rows.get(l.row);
        if (list) list.push(l);
        else rows.set(l.row, [l]);
      }
    }
    const latest = byInstance.get(current) ?? new Map<string, RowLine[]>();
    this.instance = newInstance ?? current;
    for (const [k, v] of newInstance === undefined ? latest : new Map<string, RowLine[]>()) this.rows.set(k, v);
    if (newInstance !== undefined) for (const [k, v] of latest) this.replaced.set(k, v);
    this.marked = newInstance === undefined;
  }

  /** The book of batch `batch` of one service and account (`readOnly`: a dry run creates nothing). */
  static open(env: NodeJS.ProcessEnv, scope: LedgerScope, clocks: LedgerClocks, batch: string, opts: { newInstance?: string; readOnly?: boolean } = {}): BatchBook {
    const open = opts.readOnly ? Ledger.peek : Ledger.open;
    const ledger = open(env, scope, clocks, [JSON.stringify(batch)], legacyBatchLines(env, scope, batch));
    return new BatchBook(ledger, batch, opts.newInstance);
  }

  get path(): string {
    return this.ledger.path;
  }

  /** What the row's keys did in this run's instance. */
  row(rowId: string): RowRecord | undefined {
    const lines = this.rows.get(rowId);
    return lines ? foldRow(lines) : undefined;
  }

  /** With --new-batch: what the row's keys did in the instance it replaces. */
  replacedRow(rowId: string): RowRecord | undefined {
    const lines = this.replaced.get(rowId);
    return lines ? foldRow(lines) : undefined;
  }

  /** Every row of this run's instance that the service accepted. */
  *accepted(): Iterable<RowRecord> {
    for (const lines of this.rows.values()) {
      const r = foldRow(lines);
      if (isAccepted(r)) yield r;
    }
  }

  /** Whether this run's instance has any row on record. */
  get hasRows(): boolean {
    return this.rows.size > 0;
  }

  /** The batch's events, in order (runs, their ends, instances). */
  events(): readonly BatchLine[] {
    return this.marks;
  }

  /**
   * Sending begins: a --new-batch instance is recorded now (so the command run again without
   * the flag finishes it), then the run and where its rows came from.
   */
  begin(source: string): void {
    if (!this.marked) this.ledger.record({ op: 'batch', batch: this.batch, event: 'instance', instance: this.instance });
    this.marked = true;
    this.ledger.record({ op: 'batch', batch: this.batch, event: 'run', source, ...(this.instance ? { instance: this.instance } : {}) });
  }

  /** Sending ended: `complete` when every row of the file is accepted (sent, held, or earlier). */
  end(complete: boolean): void {
    this.ledger.record({ op: 'batch', batch: this.batch, event: 'end', complete, ...(this.instance ? { instance: this.instance } : {}) });
  }

  record(line: Omit<RowLine, 'at' | 'svc_at' | 'attempt' | 'op' | 'batch' | 'instance'>): void {
    const full = { ...line, op: 'row' as const, batch: this.batch, ...(this.instance ? { instance: this.instance } : {}) };
    const written = this.ledger.record(full) as RowLine;
    const list = this.rows.get(line.row);
    if (list) list.push(written);
    else this.rows.set(line.row, [written]);
  }

  close(): void {
    this.ledger.close();
  }
}
