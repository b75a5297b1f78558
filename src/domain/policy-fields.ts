// The spend policy fields: the spec's six in its order, then `approvals_required` (beyond the
// spec: DESIGN.md "Quorum"). Apart from policy.ts so that what only shows a policy (`agent policy
// get`) does not load the engine and the EIP-55 hash its validation uses.
export const POLICY_FIELDS = [
  'daily_limit_usdc', 'per_transaction_limit_usdc', 'allowed_recipients', 'assets', 'active_hours', 'hitl_threshold_usdc',
  'approvals_required',
] as const;

/** How many distinct owner keys must approve a held transaction (unset: one, as the spec has it). */
export const APPROVALS_REQUIRED_MIN = 1;
export const APPROVALS_REQUIRED_MAX = 5;
export const APPROVALS_REQUIRED_RULE = `must be a whole number from ${APPROVALS_REQUIRED_MIN} to ${APPROVALS_REQUIRED_MAX}`;
