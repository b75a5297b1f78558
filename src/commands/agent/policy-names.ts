// The one name of each spend policy field, and the flag that sets it: flags, tables, help and
// docs/agents.md all say these (issue 25: `--per-tx-limit`, "Per transaction" and
// `per_transaction_limit_usdc` were three names for one limit). Kept free of imports: the
// registration (start-up path) reads the flags from here.

export interface PolicyName {
  /** The API's field (JSON, TSV and --policy-file keep it). */
  field: string;
  /** The flag of `agent create` and `agent policy set` that sets it. */
  flag: string;
  /** What a person reads: table rows and docs. */
  label: string;
  /** Older flags that still work, hidden from help (scripts written before the rename). */
  oldFlags?: string[];
}

export const POLICY_NAMES: readonly PolicyName[] = [
  { field: 'daily_limit_usdc', flag: '--daily-limit', label: 'Daily limit' },
  { field: 'per_transaction_limit_usdc', flag: '--per-transaction-limit', label: 'Per-transaction limit', oldFlags: ['--per-tx-limit'] },
  { field: 'hitl_threshold_usdc', flag: '--approval-threshold', label: 'Approval threshold', oldFlags: ['--hitl-threshold'] },
  { field: 'allowed_recipients', flag: '--allow', label: 'Allowed recipients' },
  { field: 'assets', flag: '--asset', label: 'Assets' },
  { field: 'active_hours', flag: '--active-hours', label: 'Active hours' },
  { field: 'approvals_required', flag: '--approvals-required', label: 'Approvals required' },
];

/** The flag that sets `field` (a field without one: the field itself). */
export function flagOf(field: string): string {
  return POLICY_NAMES.find((n) => n.field === field)?.flag ?? field;
}

/** The name people read for `field`. */
export function labelOf(field: string): string {
  return POLICY_NAMES.find((n) => n.field === field)?.label ?? field;
}
