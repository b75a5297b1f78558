// Sending the rows of a batch as they are read: at most `concurrency` in flight over one client
// (one connection pool), each under its own idempotency key and its own --timeout budget, every
// outcome journaled the moment it is known, and the results handed on in file order (a small
// reorder window, so memory stays flat however long the file). Rows the journal shows accepted
// are not sent again. Once `stopped()` (Ctrl-C), no row starts; the ones in flight finish.
import type { Needs } from '../../../runtime/factory.js';
import type { ApiClient } from '../../../api/client.js';
import { HeldTransactionSchema, TransferSchema } from '../../../api/schemas.js';
import { ApiError, CliError } from '../../../errors.js';
import { SERVICE_KEY_MEMORY_MS } from '../../../domain/idempotency.js';
import * as z from 'zod/mini';
import { idempotencyKeyOf, isContentRowId, type KeyScope } from './identity.js';
import { isAccepted, type Journal, type JournalEntry } from './journal.js';
import type { Earlier } from './ref-changes.js';
import type { ResultLine } from './results.js';
import { isRowError, type PlannedRow, type RowError } from './plan.js';

const CreateAnswer = z.union([TransferSchema, HeldTransactionSchema]);

/** Rows started beyond the oldest unfinished one, at most: bounds the reorder buffer. */
const WINDOW = 1024;

const base = (row: PlannedRow) => ({ line: row.line, fields: row.fields, asset: row.req.asset, units: row.units });

/**
 * A refusal for good: the service answered 4xx, so no transfer exists and the same key would only
 * get the same answer. Not so for a reused key (409 idempotency_key_reused: an earlier request
 * under it exists) or rate limiting (429 after retries): those keep their key.
 */
function refusedForGood(err: unknown): boolean {
  return err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429 && err.code !== 'idempotency_key_reused';
}

/**
 * When the key a row is about to go under was first sent with no answer learnt since (a lost
 * answer, a 5xx, a kill mid-request): the service may hold a transfer under it, and answers for it
 * only for 24 hours. Undefined when the key is new or known not to have made anything.
 */
function unansweredSince(prior: JournalEntry | undefined, generation: number): string | undefined {
  if (!prior || prior.final || prior.generation !== generation) return undefined;
  if (prior.status === 'failed' && prior.error_code === 'rate_limited') return undefined; // 429: not taken
  return prior.status === 'tried' || prior.status === 'failed' ? prior.tried_at : undefined;
}

/** Why a row is not sent again: an accepted row of this instance of the batch answers for it. */
function earlierMessage(row: PlannedRow, { entry, via }: Earlier): string {
  const accepted = entry.status === 'held' ? 'held for approval' : 'accepted';
  const same = '(same recipient, amount, asset and memo)';
  if (via === 'ref_added') return `${accepted} by an earlier run of this batch before the row had a ref ${same}: not sent again`;
  if (via === 'ref_removed') return `${accepted} by an earlier run of this batch under a ref the file no longer has ${same}: not sent again`;
  if (!isContentRowId(row.rowId)) {
    // The same ref is the same payout, even edited: a second one needs a ref of its own.
    return entry.content !== undefined && entry.content !== row.content
      ? `${accepted} by an earlier run of this batch under the same ref; the row has changed since, and is not sent again (a new ref makes a new payout)`
      : `${accepted} by an earlier run of this batch (same ref): not sent again`;
  }
  return `${accepted} by an earlier run of this batch ${same}: not sent again; --new-batch sends every row again`;
}

/** A row an accepted earlier row answers for: that row's result, and why it is not sent. */
export function earlierResult(row: PlannedRow, earlier: Earlier): ResultLine {
  const prior = earlier.entry;
  return {
    ...base(row), status: prior.status === 'held' ? 'held' : 'sent', idempotency_key: prior.key, earlier: true, message: earlierMessage(row, earlier),
    ...(prior.transfer_id ? { transfer_id: prior.transfer_id } : {}), ...(prior.transaction_id ? { transaction_id: prior.transaction_id } : {}),
  };
}

/** Sends one row (or answers from the journal); never throws for an API or network failure. */
export function rowSender(ctx: Needs<'clock' | 'network'>, client: ApiClient, scope: Omit<KeyScope, 'instance'>, journal: Journal, earlierOf: (row: PlannedRow) => Earlier | undefined): (row: PlannedRow) => Promise<ResultLine> {
  const keyScope: KeyScope = { ...scope, instance: journal.instance };
  return async (row) => {
    const earlier = earlierOf(row);
    if (earlier) return earlierResult(row, earlier);
    const prior = journal.last.get(row.rowId);
    const generation = prior ? prior.generation + (prior.final ? 1 : 0) : 0;
    const key = idempotencyKeyOf(keyScope, row.rowId, generation);
    const unanswered = unansweredSince(prior, generation);
    if (unanswered !== undefined && ctx.clock.now() - Date.parse(unanswered) >= SERVICE_KEY_MEMORY_MS) {
      return {
        ...base(row), status: 'failed', idempotency_key: key, error_code: 'idempotency_outcome_unknown', kind: 'conflict',
        message: `tried under this key on ${unanswered}, how it ended is not known, and the service forgets keys after 24 hours: not sent again, as it may have been paid; look for it with \`svc transfer ls --since ${unanswered}\`, and if it is not there, give the row a new ref to pay it`,
      };
    }
    const triedAt = unanswered ?? new Date(ctx.clock.now()).toISOString();
    const entry = { row: row.rowId, line: row.line, key, generation, content: row.content, tried_at: triedAt };
    // With --new-batch, a row an earlier instance had accepted is paid again: on purpose, and said.
    const before = journal.previous.get(row.rowId);
    const again = isAccepted(before) ? { message: `sent again (--new-batch): an earlier run of this batch had it ${before.status === 'held' ? 'held' : 'accepted'}${before.transfer_id ?? before.transaction_id ? ` as ${before.transfer_id ?? before.transaction_id}` : ''}` } : {};
    ctx.network.renew(); // --timeout bounds each row's network time, not the whole batch's
    journal.record({ ...entry, status: 'tried' }); // before the request: a kill mid-request leaves this
    try {
      const { data } = await client.post('/v1/transfers', { body: row.req, idempotencyKey: key, schema: CreateAnswer });
      if ('transfer_id' in data && typeof data.transfer_id === 'string') {
        journal.record({ ...entry, status: 'sent', transfer_id: data.transfer_id });
        return { ...base(row), status: 'sent', idempotency_key: key, transfer_id: data.transfer_id, ...again };
      }
      const txn = (data as { transaction_id: string }).transaction_id;
      journal.record({ ...entry, status: 'held', transaction_id: txn });
      return { ...base(row), status: 'held', idempotency_key: key, transaction_id: txn, ...again };
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      const final = refusedForGood(err);
      journal.record({ ...entry, status: 'failed', error_code: err.code, ...(final ? { final: true } : {}) });
      return { ...base(row), status: 'failed', idempotency_key: key, error_code: err.code, kind: err.kind, message: err.message };
    }
  };
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
