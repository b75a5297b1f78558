// Showing a policy and the difference between two. Every field is shown, named as its flag names
// it (policy-names.ts), with its unit; an unset one says what it means ("none", "any"), in the
// words `policy check` uses. TSV and JSON keep the service's fields and values.
import { timeColumn } from '../../io/columns.js';
import { printRecord, type Column, type OutputMode, type Row } from '../../io/render.js';
import type { IOStreams } from '../../io/streams.js';
import { POLICY_FIELDS } from '../../domain/policy-fields.js';
import { formatUnits, parseNonNegativeDecimal } from '../../domain/amount.js';
import { flagOf, labelOf } from './policy-names.js';

/** The unit of the three limits: USD, USDG and USDC counting 1:1 (docs/agents.md). */
export const LIMIT_UNIT = 'USD';

/** A limit as people read it (`500.00 USD`), exact (bigint, never a float); undefined when unset. */
export function limitText(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  const units = parseNonNegativeDecimal(String(v), 6);
  return units === undefined ? String(v) : `${formatUnits(units, 'USDG', { minFraction: 2 })} ${LIMIT_UNIT}`;
}

/** How each field reads when set, and what unset means. */
const SHOW: Record<string, (v: unknown) => string> = {
  daily_limit_usdc: (v) => (limitText(v) ? `${limitText(v)} per UTC day` : 'none (no daily limit)'),
  per_transaction_limit_usdc: (v) => (limitText(v) ? `${limitText(v)} per transfer` : 'none (no per-transaction limit)'),
  hitl_threshold_usdc: (v) => (limitText(v) ? `${limitText(v)} (above it: held for approval)` : 'none (nothing is held)'),
  allowed_recipients: (v) => list(v, 'any recipient', 'none (no recipient is allowed)'),
  assets: (v) => list(v, 'any asset', 'none (no asset is allowed)'),
  active_hours: (v) => (v ? `${String(v)} UTC` : 'any time'),
  approvals_required: (v) => approvalsText(v),
};

/** The quorum as people read it: unset is one approval, as the spec has it. */
export function approvalsText(v: unknown): string {
  const n = v === null || v === undefined ? 1 : v;
  return n === 1 ? '1 (one owner key approves a held transfer)' : `${String(n)} (distinct owner keys must each approve a held transfer)`;
}

function list(v: unknown, unset: string, empty: string): string {
  if (v === null || v === undefined) return unset;
  if (Array.isArray(v)) return v.length ? v.join(', ') : empty;
  return String(v);
}

/** The rows of a policy read, in the order of the flags; `updated_at` relative to `now` (the service's clock). */
export function policyColumns(now: () => number): Column[] {
  return [
    { key: 'policy_id', header: 'Policy ID' },
    ...['daily_limit_usdc', 'per_transaction_limit_usdc', 'hitl_threshold_usdc', 'approvals_required', 'allowed_recipients', 'assets', 'active_hours'].map((field) => ({
      key: field,
      header: `${labelOf(field)} (${flagOf(field)})`,
      format: SHOW[field]!,
    })),
    timeColumn('updated_at', 'Updated', now),
  ];
}

/**
 * Prints a policy read. On a terminal every field shows, an unset one as what it means (a read
 * omits it); TSV keeps the fields the service sent, JSON the read itself.
 */
export function printPolicy(io: IOStreams, mode: OutputMode, data: Row, now: () => number): void {
  const record: Row = { ...data };
  if (mode === 'table') for (const f of POLICY_FIELDS) if (record[f] === undefined) record[f] = null;
  printRecord(io, mode, record, policyColumns(now));
}

/** A policy field's value in one short cell (`agent ls`, diffs): the limit with its unit, or "none" / "any". */
export function show(v: unknown, none = 'none'): string {
  if (v === null || v === undefined) return none;
  if (Array.isArray(v)) return v.length ? v.join(', ') : '(none)';
  return String(v);
}

/**
 * Only the spend policy fields of a policy read: drops `policy_id`, `updated_at` and any
 * extension field (the sandbox's `daily_spent_ciphertext` / `daily_spent_day`), so a read can be
 * validated, merged or fed back as input.
 */
export function pickPolicyFields(data: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of POLICY_FIELDS) if (Object.hasOwn(data, f)) out[f] = data[f];
  return out;
}

/** Lines `field: before → after` for every policy field that differs. */
export function policyDiff(before: Row, after: Row): string[] {
  const lines: string[] = [];
  for (const f of POLICY_FIELDS) {
    // An unset quorum is one approval: setting 1 changes nothing.
    const unset = f === 'approvals_required' ? 1 : null;
    const a = JSON.stringify(before[f] ?? unset);
    const b = JSON.stringify(after[f] ?? unset);
    if (a !== b) lines.push(`  ${f}: ${show(before[f] ?? unset, 'none')} → ${show(after[f] ?? unset, 'none')}`);
  }
  return lines;
}
