// Sending the rows of a batch as they are read: at most `concurrency` in flight over one client
// (one connection pool), each row paid through the batch engine (core/batch-rows.ts: its ledger
// decides, and records what the service did), and the results handed on in file order (a small
// reorder window, so memory stays flat however long the file). This file words each row's
// outcome. Once `stopped()` (Ctrl-C), no row starts; the ones in flight finish.
import type { ApiClient } from '../../../api/client.js';
import type { Needs } from '../../../runtime/factory.js';
import type { RowRecord } from '../../../core/batch-book.js';
import { isContentRowId } from '../../../core/batch-identity.js';
import type { Earlier } from '../../../core/batch-ref-changes.js';
import { rowSender as coreSender, type RowOutcome, type RowSenderOptions } from '../../../core/batch-rows.js';
import type { ResultLine } from './results.js';
import { isRowError, type PlannedRow, type RowError } from './plan.js';

/** Rows started beyond the oldest unfinished one, at most: bounds the reorder buffer. */
const WINDOW = 1024;

const base = (row: PlannedRow) => ({ line: row.line, fields: row.fields, asset: row.req.asset, units: row.units });

/** Why a row is not sent again: an accepted row of this instance of the batch answers for it. */
function earlierMessage(row: PlannedRow, { entry, via }: Earlier, held: string | undefined): string {
  const accepted = held === 'approved' ? 'held for approval, then approved,' : entry.line.held !== undefined ? 'held for approval' : 'accepted';
  const same = '(same recipient, amount, asset and memo)';
  if (via === 'ref_added') return `${accepted} by an earlier run of this batch before the row had a ref ${same}: not sent again`;
  if (via === 'ref_removed') return `${accepted} by an earlier run of this batch under a ref the file no longer has ${same}: not sent again`;
  if (!isContentRowId(row.rowId)) return `${accepted} by an earlier run of this batch (same ref): not sent again`;
  return `${accepted} by an earlier run of this batch ${same}: not sent again; --new-batch sends every row again`;
}

/** A row an accepted earlier row answers for (as recorded, or as learnt now): its result, and why it is not sent. */
export function earlierResult(row: PlannedRow, earlier: Earlier, learnt: { transferId?: string; transactionId?: string; held?: string } = {}): ResultLine {
  const line = earlier.entry.line;
  const held = learnt.held ?? line.held;
  const transferId = learnt.transferId ?? line.transfer_id;
  const transactionId = learnt.transactionId ?? line.transaction_id;
  const ids = { ...(transferId ? { transfer_id: transferId } : {}), ...(transactionId ? { transaction_id: transactionId } : {}) };
  const r = { ...base(row), idempotency_key: line.key, earlier: true as const, ...ids };
  if (held === 'rejected') {
    return { ...r, status: 'failed', error_code: 'transaction_rejected', kind: 'refused', message: `held for approval by an earlier run of this batch, then rejected: nothing was sent; not sent again (a new ref makes a new payout)` };
  }
  if (held === 'expired') {
    return { ...r, status: 'failed', error_code: 'transaction_expired', kind: 'conflict', message: `held for approval by an earlier run of this batch, and nobody approved it in time: nothing was sent; not sent again (a new ref proposes it again)` };
  }
  const status = transferId !== undefined ? 'sent' : held !== undefined ? 'held' : 'sent';
  return { ...r, status, message: earlierMessage(row, earlier, held) };
}

/** A ref's row the batch paid with other content: not sent, and said so (exit non-zero). */
export function changedResult(row: PlannedRow, record: RowRecord): ResultLine {
  const l = record.line;
  const what = l.transfer_id ? `transfer ${l.transfer_id}` : `held transaction ${l.transaction_id ?? ''}`;
  return {
    ...base(row), status: 'changed', idempotency_key: l.key, error_code: 'row_changed', kind: 'conflict',
    ...(l.transfer_id ? { transfer_id: l.transfer_id } : {}), ...(l.transaction_id ? { transaction_id: l.transaction_id } : {}),
    message: `paid by an earlier run of this batch under the same ref with other content (${what}): not sent; a second payout needs a new ref, and a fix of the first needs \`svc transfer get\` first`,
  };
}

/** The words of one row's outcome. */
function resultOf(row: PlannedRow, o: RowOutcome): ResultLine {
  switch (o.kind) {
    case 'earlier':
      return earlierResult(row, o.earlier, o);
    case 'changed':
      return changedResult(row, o.record);
    case 'failed':
      return { ...base(row), status: 'failed', idempotency_key: o.key, error_code: o.code, ...(o.reason !== undefined ? { reason: o.reason } : {}), kind: o.errorKind, message: o.message };
    case 'sent':
    case 'held': {
      const before = o.replaced?.line;
      // With --new-batch, a row an earlier instance had accepted is paid again: on purpose, and said.
      const again = before ? { message: `sent again (--new-batch): an earlier run of this batch had it ${before.held !== undefined ? 'held' : 'accepted'}${before.transfer_id ?? before.transaction_id ? ` as ${before.transfer_id ?? before.transaction_id}` : ''}` } : {};
      return o.kind === 'sent'
        ? { ...base(row), status: 'sent', idempotency_key: o.key, transfer_id: o.transferId, ...again }
        : { ...base(row), status: 'held', idempotency_key: o.key, transaction_id: o.transactionId, ...again };
    }
  }
}

/** Sends one row (or answers from the ledger), as a result line; never throws for an API or network failure. */
export function rowSender(ctx: Needs<'network'>, client: ApiClient, opts: RowSenderOptions): (row: PlannedRow) => Promise<ResultLine> {
  const send = coreSender(ctx, client, opts);
  return async (row) => resultOf(row, await send(row));
}

export interface RunRowsOptions {
  concurrency: number;
  stopped: () => boolean;
  /** Each result, in file order. */
  emit: (r: ResultLine) => void;
}

/** Runs `handle` over the valid rows (invalid ones are `skipped`, rows after a stop `not_sent`). */
export async function runRows(items: AsyncIterable<PlannedRow | RowError>, handle: (row: PlannedRow) => Promise<ResultLine>, opts: RunRowsOptions): Promise<void> {
  const done = new Map<number, ResultLine>();
  let next = 0; // the next index to emit
  let count = 0;
  let inFlight = 0;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const settle = (i: number, r: ResultLine) => {
    done.set(i, r);
    while (done.has(next)) {
      opts.emit(done.get(next)!);
      done.delete(next++);
    }
  };
  const room = () => inFlight < opts.concurrency && count - next < WINDOW;
  for await (const item of items) {
    const i = count++;
    if (isRowError(item)) {
      settle(i, { line: item.line, fields: item.fields, status: 'skipped', error_code: 'invalid_row', message: item.message });
      continue;
    }
    while (!room() && failure === undefined) await new Promise<void>((resolve) => (wake = resolve));
    if (failure !== undefined) throw failure;
    if (opts.stopped()) {
      settle(i, { ...base(item), status: 'not_sent', idempotency_key: '' });
      continue;
    }
    inFlight++;
    handle(item).then(
      (r) => settle(i, r),
      (err: unknown) => (failure ??= err),
    ).finally(() => {
      inFlight--;
      wake?.();
    });
  }
  while (inFlight > 0) await new Promise<void>((resolve) => (wake = resolve));
  if (failure !== undefined) throw failure;
}
