// Checking a whole payout file before anything is sent: each row with the same rules as
// `transfer send` (one function, buildTransferRequest), duplicate refs, and the totals per asset.
// Each row gets its idempotency key here: derived from the batch id and the row, so running the
// same file again can never pay a row twice.
import { createHash } from 'node:crypto';
import { parseAmount } from '../../../domain/amount.js';
import { CliError, UsageError } from '../../../errors.js';
import type { InputRow } from './input.js';
import { buildTransferRequest, type TransferRequest } from '../request.js';

export interface PlannedRow {
  line: number;
  fields: InputRow['fields'];
  req: TransferRequest;
  /** The amount in its asset's smallest units. */
  units: bigint;
  /** Identifies the row within its batch: from its ref, else from its line and content. */
  rowId: string;
}

export interface RowError {
  line: number;
  fields: InputRow['fields'];
  message: string;
}

export const BATCH_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
export const BATCH_ID_RULE = 'must be 1 to 64 characters of A-Z, a-z, 0-9, "_" or "-"';

/** `--batch-id`, or the file's content hash: an unchanged file is the same batch. */
export function batchIdFor(given: string | undefined, contentHash: string): string {
  if (given === undefined) return contentHash.slice(0, 16);
  if (!BATCH_ID_RE.test(given)) throw new UsageError(`--batch-id ${BATCH_ID_RULE}`, undefined, 'invalid_batch');
  return given;
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

function rowIdOf(row: InputRow): string {
  const f = row.fields;
  // With a ref the row keeps its key when lines move; without one, its line, recipient and asset
  // decide. Never the amount or the memo: the key travels in headers and --verbose traces, and an
  // amount edited in place must meet the journal (or the service's 409), not be paid again.
  return sha(f.ref !== undefined ? `ref\u0000${f.ref}` : `line\u0000${row.line}\u0000${f.to ?? ''}\u0000${f.asset ?? ''}`).slice(0, 24);
}

/**
 * The key of a row's `generation`-th attempt. Generation 0 is the first; a row whose earlier
 * attempt was refused for good (a 4xx, so no transfer exists) is tried again under the next one,
 * because the service remembers a refused key's answer.
 */
export function idempotencyKeyOf(batchId: string, rowId: string, generation: number): string {
  return `svc-batch-${batchId}-${rowId}${generation > 0 ? `-r${generation}` : ''}`;
}

/** The flag-worded messages of buildTransferRequest, worded for a file's columns. */
function asColumn(message: string): string {
  return message.replace(/^--(memo|asset)\b/, '$1');
}

/**
 * Checks one row. `refs` remembers the line of each ref seen so far (the caller keeps it for the
 * file), so a repeated ref is an error of its second row.
 */
export function checkRow(row: InputRow, confidential: boolean, refs: Map<string, number>): PlannedRow | RowError {
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
  return { line: row.line, fields: f, req, units: parsed.units, rowId: rowIdOf(row) };
}

export function isRowError(r: PlannedRow | RowError): r is RowError {
  return 'message' in r;
}

/** Adds an amount to the totals per asset (smallest units). */
export function addToTotals(totals: Map<string, bigint>, asset: string, units: bigint): void {
  totals.set(asset, (totals.get(asset) ?? 0n) + units);
}
