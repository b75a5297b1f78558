// Checking a whole payout file before anything is sent: each row with the same rules as
// `transfer send` (one function, buildTransferRequest), duplicate refs, and the totals per asset.
// What a row is (its identity, hence its idempotency key) is identity.ts's job.
import { basename } from 'node:path';
import { parseAmount } from '../../../domain/amount.js';
import { CliError, UsageError } from '../../../errors.js';
import type { InputRow } from './input.js';
import { buildTransferRequest, type TransferRequest } from '../../../core/request.js';
import type { CheckedRow as CoreCheckedRow, PlannedRow as Planned } from '../../../core/batch-identity.js';

/** A row that passed every check. */
export interface CheckedRow extends CoreCheckedRow {
  fields: InputRow['fields'];
}

/** A checked row and who it is (core/batch-identity.ts). */
export type PlannedRow = Planned<CheckedRow>;

export interface RowError {
  line: number;
  fields: InputRow['fields'];
  message: string;
}

export const BATCH_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const BATCH_NAME_RULE = 'must be 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" or "-", beginning with a letter or a digit';

/**
 * The batch's name: `--batch-id`, else the file's own name (`payouts.csv`, wherever it lies), or
 * `stdin` for `-`. The name, not the file's bytes, is the batch: a file edited between runs (a
 * failed row corrected) is still the same batch, and its accepted rows are not paid again.
 */
export function batchNameFor(path: string, given: string | undefined): string {
  if (given !== undefined) {
    if (!BATCH_NAME_RE.test(given)) throw new UsageError(`--batch-id ${BATCH_NAME_RULE}`, undefined, 'invalid_batch');
    return given;
  }
  return path === '-' ? 'stdin' : basename(path);
}

/** The flag-worded messages of buildTransferRequest, worded for a file's columns. */
function asColumn(message: string): string {
  return message.replace(/^--(memo|asset)\b/, '$1');
}

/**
 * Checks one row. `refs` remembers the line of each ref seen so far (the caller keeps it for the
 * file), so a repeated ref is an error of its second row.
 */
export function checkRow(row: InputRow, confidential: boolean, refs: Map<string, number>): CheckedRow | RowError {
  const f = row.fields;
  const fail = (message: string): RowError => ({ line: row.line, fields: f, message });
  if (row.problem) return fail(row.problem);
  if (f.to === undefined) return fail('to is required');
  if (f.amount === undefined) return fail('amount is required');
  if (f.ref !== undefined) {
    const first = refs.get(f.ref);
    if (first !== undefined) return fail(`ref "${f.ref}" is already used on line ${first}: each row's ref must be unique`);
    refs.set(f.ref, row.line);
  }
  let req: TransferRequest;
  try {
    req = buildTransferRequest(f.to, f.amount, { ...(f.asset ? { asset: f.asset } : {}), ...(f.memo !== undefined ? { memo: f.memo } : {}), confidential });
  } catch (err) {
    if (err instanceof CliError) return fail(asColumn(err.message));
    throw err;
  }
  const parsed = parseAmount(f.amount, req.asset);
  if (!parsed.ok) throw new Error('unreachable: buildTransferRequest checked the amount');
  return { line: row.line, fields: f, req, units: parsed.units };
}

export function isRowError<T extends CheckedRow>(r: T | RowError): r is RowError {
  return 'message' in r;
}

/** Adds an amount to the totals per asset (smallest units). */
export function addToTotals(totals: Map<string, bigint>, asset: string, units: bigint): void {
  totals.set(asset, (totals.get(asset) ?? 0n) + units);
}
