// Who a row of a batch is, and the idempotency key it is sent under. A row with a ref is its ref:
// whatever else in the file changes, it is the same payout. A row without one is what it pays
// (recipient, amount, asset and memo), numbered among identical rows (two identical rows are two
// payouts), hashed under the local key (config/local-key.ts) so that neither the journal nor a key
// in a --verbose trace gives an amount away, even to someone trying every amount. The key of a
// row derives from the account, the batch's name and instance (--new-batch) and the row, plus
// the generation of the attempt after a refusal for good.
import { createHash, createHmac } from 'node:crypto';
import type { TransferRequest } from './request.js';

/** A row of a batch that passed every check (the file's own fields are the front end's). */
export interface CheckedRow {
  line: number;
  fields: { readonly ref?: string | undefined };
  req: TransferRequest;
  /** The amount in its asset's smallest units. */
  units: bigint;
}

/** A checked row and who it is. */
export type PlannedRow<R extends CheckedRow = CheckedRow> = R & {
  /** Identifies the row within its batch: from its ref, else from a keyed hash of its content. */
  rowId: string;
  /** A keyed hash of recipient, amount, asset and memo: tells whether a ref's row has changed. */
  content: string;
};

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Gives each checked row of one read of a file its identity (reads of the same file agree). */
export class RowIdentities {
  /** Identical rows without a ref seen so far, by content. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly key: Buffer) {}

  of<R extends CheckedRow>(row: R): PlannedRow<R> {
    const content = this.contentOf(row);
    if (row.fields.ref !== undefined) return { ...row, rowId: `ref-${sha(`ref\u0000${row.fields.ref}`).slice(0, 32)}`, content };
    const n = (this.seen.get(content) ?? 0) + 1;
    this.seen.set(content, n);
    return { ...row, rowId: `row-${content}-${n}`, content };
  }

  /** How many rows without a ref of this content the read has seen (all of the file's, once it is read). */
  plainCount(content: string): number {
    return this.seen.get(content) ?? 0;
  }

  /** What the row pays, keyed: the same payout written differently (`@ACME`, `7.50`) hashes the same. */
  private contentOf(row: CheckedRow): string {
    const to = row.req.to.toLowerCase(); // handles are sent lower-case; an address's case is only its checksum
    const text = [to, row.req.asset, row.units.toString(), row.req.memo ?? ''].join('\u0000');
    return createHmac('sha256', this.key).update(text).digest('hex').slice(0, 32);
  }
}

/** Whether a row id names a row without a ref (matched by content: it needs the same local key). */
export function isContentRowId(rowId: string): boolean {
  return rowId.startsWith('row-');
}

/** One batch of one account, in one instance (`""` until --new-batch starts another). */
export interface KeyScope {
  accountId: string;
  batch: string;
  instance: string;
}

/**
 * The key of a row's `generation`-th attempt. Generation 0 is the first; a row whose earlier
 * attempt was refused for good (a 4xx, so no transfer exists) is tried again under the next one,
 * because the service remembers a refused key's answer.
 */
export function idempotencyKeyOf(scope: KeyScope, rowId: string, generation: number): string {
  const id = sha(['svc-batch', scope.accountId, scope.batch, scope.instance, rowId].join('\u0000')).slice(0, 32);
  return `svc-batch-${id}${generation > 0 ? `-r${generation}` : ''}`;
}

/** A fingerprint of the local key, kept in the journal: a replaced key is noticed, not trusted. */
export function keyIdOf(key: Buffer): string {
  return createHmac('sha256', key).update('svc-batch key id').digest('hex').slice(0, 16);
}
