// What `--clear` takes: a policy flag's own name → the spend policy field it clears. Kept free
// of imports but policy-names.ts (itself free of them): the registration (start-up path) lists
// these names in --help. An old flag name (per-tx-limit, hitl-threshold) still clears its field.
import { POLICY_NAMES } from './policy-names.js';

export const CLEARABLE: Readonly<Record<string, string>> = Object.fromEntries(
  POLICY_NAMES.flatMap((n) => [n.flag, ...(n.oldFlags ?? [])].map((flag) => [flag.replace(/^--/, ''), n.field])),
);

/** The names --help lists: the current flags only. */
export const CLEARABLE_NAMES: readonly string[] = POLICY_NAMES.map((n) => n.flag.replace(/^--/, ''));
