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

/** Results that do not say which decision was sent: the table adds it (`unknown (reject)`). */
const SAYS_NOT_WHICH = new Set(['expired', 'already_decided', 'unknown']);

/**
 * The decision and what came of it, in one cell: `approved`, `rejected`, `partial (1 of 2)`,
 * `approved (2 of 2)` where more than one approval was needed, `expired (approve)`.
 */
function resultText(e: DecisionEntry): string {
  const counted = e.approvals !== undefined && e.approvals_required !== undefined && e.approvals_required > 1;
  if (counted && e.decision === 'approve') return `${e.result} (${e.approvals} of ${e.approvals_required})`;
  return SAYS_NOT_WHICH.has(e.result) ? `${e.result} (${e.decision})` : e.result;
}

/** Who decided: the key's name as the service gave it, else `(profile ops)`: the profile it was sent with. */
function byText(e: DecisionEntry): string {
  if (e.key_name !== undefined) return e.key_name;
  return e.profile !== undefined ? `(profile ${e.profile})` : '-';
}

export async function showLog(ctx: Needs<'env' | 'io' | 'json'>, opts: { limit?: string }): Promise<void> {
  const limit = parseLimit(opts.limit);
  const entries = [...readDecisions(ctx.env)].reverse().slice(0, limit);
  const mode = outputMode(ctx.io, ctx.json);
  // What an auditor reads by stays at 80 columns (docs/ux.md "Width"): when, the decision and its
  // result, who decided, the agent whole, the reason; the ids and the recipient go first.
  printList(ctx.io, mode, entries.map((e) => (mode === 'json' ? { ...e } : { ...e, result_text: resultText(e), by: byText(e) })), [
    { key: 'time', header: 'TIME', format: utc },
    { key: 'result_text', header: 'RESULT', only: 'table' },
    { key: 'result', header: 'RESULT', only: 'tsv' },
    { key: 'decision', header: 'DECISION', only: 'tsv' },
    textColumn('by', 'BY', { only: 'table' }),
    idColumn('transaction_id', 'TRANSACTION', { drop: 2 }),
    { key: 'agent', header: 'AGENT' }, // whole: an auditor tells agents apart by it
    addressColumn('to', 'TO', { drop: 1 }),
    textColumn('reason', 'REASON'),
    idColumn('transfer_id', 'TRANSFER', { drop: 0 }),
    { key: 'profile', header: 'PROFILE', only: 'tsv' },
    { key: 'key_name', header: 'KEY', only: 'tsv' },
    { key: 'base_url', header: 'SERVICE', only: 'tsv' },
    { key: 'via', header: 'VIA', only: 'tsv' },
    { key: 'approvals', header: 'APPROVALS', only: 'tsv' },
    { key: 'approvals_required', header: 'APPROVALS REQUIRED', only: 'tsv' },
  ], 'No decisions recorded on this machine yet (svc pending approve|reject|review record them here).');
}
