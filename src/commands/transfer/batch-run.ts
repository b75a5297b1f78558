// Sending the rows of a batch: a fixed number of workers over one client (one connection pool),
// each row under its own idempotency key and its own --timeout budget, every outcome journaled
// the moment it is known. Rows the journal already shows accepted are not sent again. Ctrl-C
// stops starting rows; the ones in flight finish and are recorded.
import type { App } from '../../app.js';
import type { ApiClient } from '../../api/client.js';
import { HeldTransactionSchema, TransferSchema } from '../../api/schemas.js';
import { ApiError, CliError } from '../../errors.js';
import * as z from 'zod/mini';
import type { Journal, JournalEntry } from './batch-journal.js';
import { idempotencyKeyOf, type PlannedRow } from './batch-plan.js';

export type RowStatus = 'sent' | 'held' | 'failed' | 'not_sent';

export interface RowResult {
  row: PlannedRow;
  status: RowStatus;
  idempotency_key: string;
  transfer_id?: string;
  transaction_id?: string;
  error_code?: string;
  /** The exit code this row's failure maps to (docs/exit-codes.md). */
  exitCode?: number;
  /** Accepted by an earlier run (from the journal): nothing was sent this time. */
  earlier?: boolean;
}

const CreateAnswer = z.union([TransferSchema, HeldTransactionSchema]);

export interface RunOptions {
  concurrency: number;
  /** Called after each row (for the progress bar). */
  onRow?: (done: number) => void;
}

/** What the journal says about a row: done (no request), or the attempt generation to use. */
function fromJournal(row: PlannedRow, prior: JournalEntry | undefined): RowResult | { generation: number } {
  if (prior?.status === 'sent' || prior?.status === 'held') {
    return {
      row, status: prior.status, idempotency_key: prior.key, earlier: true,
      ...(prior.transfer_id ? { transfer_id: prior.transfer_id } : {}), ...(prior.transaction_id ? { transaction_id: prior.transaction_id } : {}),
    };
  }
  return { generation: prior ? prior.generation + (prior.final ? 1 : 0) : 0 };
}

/**
 * A refusal for good: the service answered 4xx, so no transfer exists and the same key would only
 * get the same answer. Not so for a reused key (409 idempotency_key_reused: an earlier request
 * under it exists) or rate limiting (429 after retries): those keep their key.
 */
function refusedForGood(err: unknown): boolean {
  return err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429 && err.code !== 'idempotency_key_reused';
}

export async function sendRows(app: App, client: ApiClient, batchId: string, rows: readonly PlannedRow[], journal: Journal, opts: RunOptions): Promise<{ results: RowResult[]; interrupted: boolean }> {
  const results: RowResult[] = new Array(rows.length);
  let next = 0;
  let done = 0;
  let interrupted = false;
  void app.waitForInterrupt().then(() => {
    interrupted = true;
  });

  const one = async (row: PlannedRow): Promise<RowResult> => {
    const known = fromJournal(row, journal.last.get(row.rowId));
    if ('status' in known) return known;
    const key = idempotencyKeyOf(batchId, row.rowId, known.generation);
    const base = { row: row.rowId, line: row.line, key, generation: known.generation };
    app.renewBudget(); // --timeout bounds each row's network time, not the whole batch's
    try {
      const { data } = await client.post('/v1/transfers', { body: row.req, idempotencyKey: key, schema: CreateAnswer });
      if ('transfer_id' in data && typeof data.transfer_id === 'string') {
        journal.record({ ...base, status: 'sent', transfer_id: data.transfer_id });
        return { row, status: 'sent', idempotency_key: key, transfer_id: data.transfer_id };
      }
      const txn = (data as { transaction_id: string }).transaction_id;
      journal.record({ ...base, status: 'held', transaction_id: txn });
      return { row, status: 'held', idempotency_key: key, transaction_id: txn };
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      const final = refusedForGood(err);
      journal.record({ ...base, status: 'failed', error_code: err.code, ...(final ? { final: true } : {}) });
      return { row, status: 'failed', idempotency_key: key, error_code: err.code, exitCode: err.exitCode };
    }
  };

  const worker = async () => {
    while (!interrupted && next < rows.length) {
      const i = next++;
      results[i] = await one(rows[i]!);
      opts.onRow?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, rows.length)) }, worker));
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    results[i] ??= { row, status: 'not_sent', idempotency_key: idempotencyKeyOf(batchId, row.rowId, 0) };
  }
  return { results, interrupted };
}
