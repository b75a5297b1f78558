// Showing a policy and the difference between two.
import { timeColumn } from '../../io/columns.js';
import type { Column, Row } from '../../io/render.js';
import { POLICY_FIELDS } from '../../domain/policy-fields.js';

/** The fields of a policy read; `updated_at` relative to `now` (the service's clock). */
export function policyColumns(now: () => number): Column[] {
  return [
    { key: 'policy_id', header: 'Policy ID' },
    { key: 'daily_limit_usdc', header: 'Daily limit', format: (v) => show(v) },
    { key: 'per_transaction_limit_usdc', header: 'Per transaction', format: (v) => show(v) },
    { key: 'hitl_threshold_usdc', header: 'Approval above', format: (v) => show(v) },
    { key: 'allowed_recipients', header: 'Recipients', format: (v) => show(v, 'anyone') },
    { key: 'assets', header: 'Assets', format: (v) => show(v, 'any') },
    { key: 'active_hours', header: 'Active hours', format: (v) => (v ? `${v} UTC` : 'any time') },
    timeColumn('updated_at', 'Updated', now),
  ];
}

export function show(v: unknown, none = 'no limit'): string {
  if (v === null || v === undefined) return none;
  if (Array.isArray(v)) return v.length ? v.join(', ') : '(none)';
  return String(v);
}

/**
 * Only the six spend policy fields of a policy read: drops `policy_id`, `updated_at` and any
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
    const a = JSON.stringify(before[f] ?? null);
    const b = JSON.stringify(after[f] ?? null);
    if (a !== b) lines.push(`  ${f}: ${show(before[f], 'none')} → ${show(after[f], 'none')}`);
  }
  return lines;
}
