// One row of a batch, paid at most once: what the batch's ledger says of the row decides (accepted
// before: shown, a held one followed to what it became; paid before with other content: not
// sent; tried with no answer: sent again under the same key while the service surely remembers
// it, else not sent; refused: sent again, under the next key when the service keeps the refusal
// under the old one), then the row goes out with its ledger lines around it. Nothing here
// prints: the front end (commands/transfer/batch/send-rows.ts) words each outcome.
import * as z from 'zod/mini';
import type { ApiClient } from '../api/client.js';
import { HeldTransactionSchema, TransferSchema } from '../api/schemas.js';
import { SERVICE_KEY_MEMORY_MS } from '../domain/idempotency.js';
import { ApiError, CliError, type ErrorKind } from '../errors.js';
import type { Needs } from '../runtime/factory.js';
import { isAccepted, type BatchBook, type RowRecord } from './batch-book.js';
import { idempotencyKeyOf, isContentRowId, type KeyScope, type PlannedRow } from './batch-identity.js';
import type { Earlier } from './batch-ref-changes.js';
import { fetchHeld } from './held.js';
import type { Moment } from './ledger/fold.js';
import { ageOf, type Now } from './ledger/memory.js';
import { forgottenUnknown, refusedAfterUnknown } from './outcome.js';
import { heldStateOf } from './payment.js';

const CreateAnswer = z.union([TransferSchema, HeldTransactionSchema]);

export type RowOutcome =
  | { kind: 'sent'; key: string; transferId: string; /** --new-batch: what an earlier instance had made of it. */ replaced?: RowRecord }
  | { kind: 'held'; key: string; transactionId: string; replaced?: RowRecord }
  /** Accepted by an earlier run (or, its ref added or removed, another row's): not sent again. */
  | { kind: 'earlier'; earlier: Earlier; transferId?: string; transactionId?: string; held?: string }
  /** Paid by an earlier run under the same ref with other content: not sent (a new ref makes a new payout). */
  | { kind: 'changed'; record: RowRecord }
  | { kind: 'failed'; key: string; code: string; errorKind: ErrorKind; message: string; /** A policy_violation's rule. */ reason?: string };

/** What the ledger says to do with a row that no accepted row answers for. */
type Plan =
  | { kind: 'send'; gen: number; key: string; reachedBefore: boolean }
  | { kind: 'unknown'; key: string; since: Moment; future: boolean };

/** Refusals the service keeps under the key (it would answer a retry under it the same): the next try needs the next key. */
function remembered(err: ApiError): boolean {
  return [400, 402, 404, 422].includes(err.status) || err.code === 'policy_violation' || err.code === 'kyc_required';
}

/** The plan for a row from its record in this instance. */
export function planRow(record: RowRecord | undefined, scope: KeyScope, rowId: string, now: Now): Plan {
  if (!record) return { kind: 'send', gen: 0, key: idempotencyKeyOf(scope, rowId, 0), reachedBefore: false };
  const { line } = record;
  if (record.status === 'unknown') {
    const since = record.firstTry ?? { at: line.at };
    const age = ageOf(since, now);
    if (age.kind === 'elapsed' && age.ms < SERVICE_KEY_MEMORY_MS) return { kind: 'send', gen: line.gen, key: line.key, reachedBefore: true };
    return { kind: 'unknown', key: line.key, since, future: age.kind === 'future' };
  }
  // Refused (the next key when the service keeps the refusal), or never sent: nothing was made.
  const gen = record.status === 'refused' && line.remembered ? line.gen + 1 : line.gen;
  return { kind: 'send', gen, key: idempotencyKeyOf(scope, rowId, gen), reachedBefore: false };
}

/** The row's own accepted record, or the one a ref added or removed points to; a ref's row paid with other content is `changed`. */
export function earlierOf(book: BatchBook, viaRefChange: (row: PlannedRow) => Earlier | undefined): (row: PlannedRow) => Earlier | { changed: RowRecord } | undefined {
  return (row) => {
    const own = book.row(row.rowId);
    if (isAccepted(own)) {
      const content = own.line.content;
      if (!isContentRowId(row.rowId) && content !== undefined && content !== row.content) return { changed: own };
      return { entry: own };
    }
    return viaRefChange(row);
  };
}

export interface RowSenderOptions {
  book: BatchBook;
  scope: KeyScope;
  keyId: string;
  /** Now on both clocks, asked when a row's window decides (the service's time learnt once). */
  now: () => Promise<Now>;
  earlier: (row: PlannedRow) => Earlier | { changed: RowRecord } | undefined;
}

/** Sends one row (or answers from the ledger); never throws for an API or network failure. */
export function rowSender(ctx: Needs<'network'>, client: ApiClient, o: RowSenderOptions): (row: PlannedRow) => Promise<RowOutcome> {
  return async (row) => {
    const found = o.earlier(row);
    if (found && 'changed' in found) return { kind: 'changed', record: found.changed };
    ctx.network.renew(); // --timeout bounds each row's network time, not the whole batch's
    if (found) return learnEarlier(client, o.book, row, found);
    const record = o.book.row(row.rowId);
    const plan = planRow(record, o.scope, row.rowId, record?.status === 'unknown' ? await o.now() : { machine: 0 });
    const what = { key: plan.key, what: `row ${row.line}`, payAgain: 'give the row a new ref to pay it' };
    if (plan.kind === 'unknown') return failedWithHint(plan.key, forgottenUnknown(what, plan.since, plan.future));
    const replaced = o.book.replacedRow(row.rowId);
    const base = { row: row.rowId, line: row.line, gen: plan.gen, key: plan.key, content: row.content, key_id: o.keyId };
    o.book.record({ ...base, status: 'tried' }); // before the request: a kill mid-request leaves this
    try {
      const { data } = await client.post('/v1/transfers', { body: row.req, idempotencyKey: plan.key, schema: CreateAnswer, ...(plan.reachedBefore ? { reachedBefore: true } : {}) });
      const again = isAccepted(replaced) ? { replaced } : {};
      if ('transfer_id' in data && typeof data.transfer_id === 'string') {
        o.book.record({ ...base, status: 'accepted', transfer_id: data.transfer_id });
        return { kind: 'sent', key: plan.key, transferId: data.transfer_id, ...again };
      }
      const txn = (data as { transaction_id: string }).transaction_id;
      o.book.record({ ...base, status: 'accepted', transaction_id: txn, held: 'pending_approval' });
      return { kind: 'held', key: plan.key, transactionId: txn, ...again };
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      const delivery = err.delivery ?? 'unknown';
      const keeps = delivery === 'refused' && err instanceof ApiError && remembered(err);
      o.book.record({ ...base, status: delivery, error_code: err.code, ...(keeps ? { remembered: true } : {}) });
      if (delivery === 'unknown' && err instanceof ApiError && err.status < 500) {
        const first = o.book.row(row.rowId)?.firstTry ?? { at: new Date(0).toISOString() };
        return failedWithHint(plan.key, refusedAfterUnknown(what, err, first));
      }
      const reason = typeof err.details.reason === 'string' ? { reason: err.details.reason } : {};
      return { kind: 'failed', key: plan.key, code: err.code, errorKind: err.kind, message: err.message, ...reason };
    }
  };
}

/** A row's result has one message: an outcome svc cannot know carries where to look in it. */
function failedWithHint(key: string, err: CliError): RowOutcome {
  return { kind: 'failed', key, code: err.code, errorKind: err.kind, message: err.hint ? `${err.message}; ${err.hint}` : err.message };
}

/**
 * An accepted earlier row: a held one is asked what it became (and that is written down), so a
 * rerun reports the transfer an approval made, or the rejection. A read that fails leaves it as
 * it was recorded.
 */
async function learnEarlier(client: ApiClient, book: BatchBook, row: PlannedRow, earlier: Earlier): Promise<RowOutcome> {
  const line = earlier.entry.line;
  const known = { kind: 'earlier' as const, earlier, ...(line.transfer_id ? { transferId: line.transfer_id } : {}), ...(line.transaction_id ? { transactionId: line.transaction_id } : {}), ...(line.held ? { held: line.held } : {}) };
  if (line.transaction_id === undefined || line.transfer_id !== undefined || line.held === 'rejected' || line.held === 'expired') return known;
  let status: string;
  let transferId: string | undefined;
  try {
    const held = await fetchHeld(client, line.transaction_id);
    status = held.status;
    transferId = held.transfer_id;
  } catch {
    return known;
  }
  const state = heldStateOf(status);
  if (state === undefined || state === 'pending_approval') return known;
  book.record({ row: line.row, line: row.line, gen: line.gen, key: line.key, ...(line.content ? { content: line.content } : {}), ...(line.key_id ? { key_id: line.key_id } : {}), status: 'accepted', transaction_id: line.transaction_id, held: state, ...(transferId ? { transfer_id: transferId } : {}) });
  return { ...known, held: state, ...(transferId ? { transferId } : {}) };
}
