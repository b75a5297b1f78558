// `svc pending log`: the decisions recorded on this machine (core/decision.ts), newest first, an
// approval short of a quorum included (`partial (1 of 2)`). A table on a terminal (times in UTC),
// TSV when piped, a JSON array with --json (the entries as recorded).
import type { Needs } from '../../runtime/factory.js';
import { UsageError } from '../../errors.js';
import { addressColumn, idColumn, textColumn } from '../../io/columns.js';
import { outputMode, printList } from '../../io/render.js';
import { readDecisions, type DecisionEntry } from '../../core/decision.js';

export const DEFAULT_LOG_LIMIT = 20;

function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LOG_LIMIT;
  if (!/^\d{1,9}$/.test(text.trim()) || Number(text) < 1) throw new UsageError(`--limit "${text}" must be a whole number of 1 or more`);
  return Number(text);
}

/** `2026-03-01 14:02:07Z`: when, to the second, in UTC (a record is read later, elsewhere). */
const utc = (v: unknown) => (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(v) ? `${v.slice(0, 10)} ${v.slice(11, 19)}Z` : String(v ?? '-'));

/** `partial (1 of 2)`, `approved (2 of 2)`: the result, with the count where more than one approval was needed. */
function resultText(e: DecisionEntry): string {
  const counted = e.approvals !== undefined && e.approvals_required !== undefined && e.approvals_required > 1;
  return counted && e.decision === 'approve' ? `${e.result} (${e.approvals} of ${e.approvals_required})` : e.result;
}

export async function showLog(ctx: Needs<'env' | 'io' | 'json'>, opts: { limit?: string }): Promise<void> {
  const limit = parseLimit(opts.limit);
  const entries = [...readDecisions(ctx.env)].reverse().slice(0, limit);
  const mode = outputMode(ctx.io, ctx.json);
  printList(ctx.io, mode, entries.map((e) => (mode === 'json' ? { ...e } : { ...e, result_text: resultText(e) })), [
    { key: 'time', header: 'TIME', format: utc },
    { key: 'result_text', header: 'RESULT', only: 'table' },
    { key: 'result', header: 'RESULT', only: 'tsv' },
    { key: 'decision', header: 'DECISION', drop: 4 },
    idColumn('transaction_id', 'TRANSACTION'),
    addressColumn('agent', 'AGENT'),
    addressColumn('to', 'TO'),
    textColumn('reason', 'REASON', { drop: 2 }),
    { key: 'transfer_id', header: 'TRANSFER', drop: 3 },
    { key: 'profile', header: 'PROFILE', drop: 1 },
    { key: 'key_name', header: 'KEY', drop: 0 },
    { key: 'base_url', header: 'SERVICE', only: 'tsv' },
    { key: 'via', header: 'VIA', only: 'tsv' },
    { key: 'approvals', header: 'APPROVALS', only: 'tsv' },
    { key: 'approvals_required', header: 'APPROVALS REQUIRED', only: 'tsv' },
  ], 'No decisions recorded on this machine yet (svc pending approve|reject|review record them here).');
}
