// The six spend policy fields, in the spec's order. Apart from policy.ts so that what only shows a
// policy (`agent policy get`) does not load the engine and the EIP-55 hash its validation uses.
export const POLICY_FIELDS = [
  'daily_limit_usdc', 'per_transaction_limit_usdc', 'allowed_recipients', 'assets', 'active_hours', 'hitl_threshold_usdc',
] as const;
