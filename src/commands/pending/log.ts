// `svc pending log`: the decisions recorded on this machine (core/decision.ts), newest first. A table on a
// terminal (times in UTC), TSV when piped, a JSON array with --json (the entries as recorded).
import type { Needs } from '../../runtime/factory.js';
import { UsageError } from '../../errors.js';
import { addressColumn, idColumn, textColumn } from '../../io/columns.js';
import { outputMode, printList } from '../../io/render.js';
import { readDecisions } from '../../core/decision.js';

export const DEFAULT_LOG_LIMIT = 20;

function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LOG_LIMIT;
  if (!/^\d{1,9}$/.test(text.trim()) || Number(text) < 1) throw new UsageError(`--limit "${text}" must be a whole number of 1 or more`);
  return Number(text);
}

/** `2026-03-01 14:02:07Z`: when, to the second, in UTC (a record is read later, elsewhere). */
const utc = (v: unknown) => (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(v) ? `${v.slice(0, 10)} ${v.slice(11, 19)}Z` : String(v ?? '-'));

export async function showLog(ctx: Needs<'env' | 'io' | 'json'>, opts: { limit?: string }): Promise<void> {
  const limit = parseLimit(opts.limit);
  const entries = [...readDecisions(ctx.env)].reverse().slice(0, limit);
  const mode = outputMode(ctx.io, ctx.json);
  printList(ctx.io, mode, entries.map((e) => ({ ...e })), [
    { key: 'time', header: 'TIME', format: utc },
    { key: 'result', header: 'RESULT' },
    { key: 'decision', header: 'DECISION', drop: 4 },
    idColumn('transaction_id', 'TRANSACTION'),
    addressColumn('agent', 'AGENT'),
    addressColumn('to', 'TO'),
    textColumn('reason', 'REASON', { drop: 2 }),
    { key: 'transfer_id', header: 'TRANSFER', drop: 3 },
    { key: 'profile', header: 'PROFILE', drop: 1 },
    { key: 'base_url', header: 'SERVICE', only: 'tsv' },
    { key: 'via', header: 'VIA', only: 'tsv' },
  ], 'No decisions recorded on this machine yet (svc pending approve|reject|review record them here).');
}
