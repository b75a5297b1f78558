// What `--clear` takes: a policy flag's own name → the spend policy field it clears. Kept free
// of imports: the registration (start-up path) lists these names in --help.
export const CLEARABLE: Readonly<Record<string, string>> = {
  'daily-limit': 'daily_limit_usdc',
  'per-tx-limit': 'per_transaction_limit_usdc',
  'hitl-threshold': 'hitl_threshold_usdc',
  allow: 'allowed_recipients',
  asset: 'assets',
  'active-hours': 'active_hours',
};
