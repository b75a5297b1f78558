// What a batch reports: one result per input row (the input columns plus transfer_id, status,
// idempotency_key, error_code), as a results file (CSV or JSON Lines, written whole then renamed
// into place), and the summary: counts, totals per asset, and the exit code.
import { renameSync, writeFileSync } from 'node:fs';
import { formatUnits } from '../../domain/amount.js';
import { ExitCode } from '../../errors.js';
import { BATCH_COLUMNS, type BatchColumn, type InputRow } from './batch-input.js';
import type { RowResult } from './batch-run.js';

export type ResultStatus = RowResult['status'] | 'skipped' | 'would_send' | 'would_hold' | 'would_deny';

export interface ResultLine {
  line: number;
  fields: InputRow['fields'];
  status: ResultStatus;
  transfer_id?: string;
  transaction_id?: string;
  idempotency_key?: string;
  error_code?: string;
  /** Why a row was skipped or would be denied (no amount in it). */
  message?: string;
  /** Already accepted by an earlier run of the same batch. */
  earlier?: boolean;
  asset?: string;
  units?: bigint;
  exitCode?: number;
}

export interface Summary {
  sent: number;
  held: number;
  failed: number;
  skipped: number;
  not_sent: number;
  /** Of `sent` and `held`: accepted by an earlier run. */
  earlier: number;
  /** Sent (and held) amounts per asset, decimal strings. */
  totals: Record<string, string>;
}

export const RESULT_COLUMNS = ['transfer_id', 'status', 'idempotency_key', 'error_code'] as const;

/** The row as a flat record: the input columns present in the file, then the result columns. */
export function resultRecord(r: ResultLine, columns: readonly BatchColumn[]): Record<string, string | number> {
  const out: Record<string, string | number> = { line: r.line };
  for (const c of columns) out[c] = r.fields[c] ?? '';
  out.transfer_id = r.transfer_id ?? r.transaction_id ?? '';
  out.status = r.status;
  out.idempotency_key = r.idempotency_key ?? '';
  out.error_code = r.error_code ?? '';
  return out;
}

function csvField(v: string | number): string {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Writes the results file whole, then renames it into place: a reader never sees half of it. */
export function writeResults(path: string, results: readonly ResultLine[], columns: readonly BatchColumn[]): void {
  const records = results.map((r) => resultRecord(r, columns));
  const header = ['line', ...columns, ...RESULT_COLUMNS];
  const text = /\.jsonl$/i.test(path)
    ? records.map((r) => `${JSON.stringify(r)}\n`).join('')
    : `${header.join(',')}\n${records.map((r) => `${header.map((h) => csvField(r[h] ?? '')).join(',')}\n`).join('')}`;
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}

/** `--out` must say its format by its name. */
export function outFormatOk(path: string): boolean {
  return /\.(csv|jsonl)$/i.test(path);
}

export function summarize(results: readonly ResultLine[]): Summary {
  const s: Summary = { sent: 0, held: 0, failed: 0, skipped: 0, not_sent: 0, earlier: 0, totals: {} };
  const totals = new Map<string, bigint>();
  for (const r of results) {
    if (r.status === 'sent' || r.status === 'held' || r.status === 'would_send' || r.status === 'would_hold') {
      if (r.asset !== undefined && r.units !== undefined) totals.set(r.asset, (totals.get(r.asset) ?? 0n) + r.units);
    }
    if (r.status === 'sent' || r.status === 'would_send') s.sent++;
    else if (r.status === 'held' || r.status === 'would_hold') s.held++;
    else if (r.status === 'failed' || r.status === 'would_deny') s.failed++;
    else if (r.status === 'skipped') s.skipped++;
    else s.not_sent++;
    if (r.earlier) s.earlier++;
  }
  for (const [asset, units] of totals) s.totals[asset] = formatUnits(units, asset);
  return s;
}

/**
 * Failures decide the exit code by severity: an unknown outcome (7) first, then a refused key
 * (3), refusals of balance or policy (6), conflicts (5), not found (4), anything else (1); held
 * rows without failures give 8; all sent gives 0 (docs/exit-codes.md).
 */
const SEVERITY: readonly number[] = [ExitCode.network, ExitCode.unauthorized, ExitCode.refused, ExitCode.conflict, ExitCode.notFound, ExitCode.failure, ExitCode.usage];

export function batchExitCode(results: readonly ResultLine[]): number {
  const failures = results.filter((r) => r.status === 'failed' || r.status === 'would_deny').map((r) => r.exitCode ?? ExitCode.failure);
  if (failures.length) return SEVERITY.find((c) => failures.includes(c)) ?? ExitCode.failure;
  if (results.some((r) => r.status === 'held' || r.status === 'would_hold')) return ExitCode.held;
  return ExitCode.ok;
}

export function summaryLine(s: Summary, dryRun: boolean): string {
  const totals = Object.entries(s.totals).map(([asset, amount]) => `${amount} ${asset}`).join(', ');
  const verbs = dryRun ? ['would send', 'would hold', 'would be denied'] : ['sent', 'held', 'failed'];
  const parts = [`${verbs[0]} ${s.sent}`, `${verbs[1]} ${s.held}`, `${verbs[2]} ${s.failed}`, `skipped ${s.skipped}`];
  if (s.not_sent) parts.push(`not sent ${s.not_sent}`);
  const earlier = s.earlier ? ` (${s.earlier} accepted by an earlier run)` : '';
  return `${parts.join(', ')}${earlier}${totals ? `; total ${totals}` : ''}`;
}

export { BATCH_COLUMNS };
