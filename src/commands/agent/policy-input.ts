// Policy flags and files → spend policy fields, validated with the shared engine before sending.
import { readFileSync } from 'node:fs';
import type { Needs } from '../../runtime/factory.js';
import { UsageError } from '../../errors.js';
import { POLICY_FIELDS, validatePolicyFields, type PolicyFields } from '../../domain/policy.js';
import { readStdin } from '../../io/secret-input.js';
import { parseNonNegativeDecimal } from '../../domain/amount.js';
import { sanitize } from '../../io/sanitize.js';
import { CLEARABLE, CLEARABLE_NAMES } from './clear-flags.js';
import { POLICY_NAMES } from './policy-names.js';
import { parseAssetFlag } from '../../runtime/flags.js';

export interface PolicyFlags {
  dailyLimit?: string;
  perTransactionLimit?: string;
  approvalThreshold?: string;
  /** The old names of the two flags above (hidden aliases). */
  perTxLimit?: string;
  hitlThreshold?: string;
  allow?: string[];
  asset?: string[];
  activeHours?: string;
  approvalsRequired?: string;
  policyFile?: string;
  clear?: string[];
  addAllow?: string[];
  removeAllow?: string[];
}

/** Sandbox-only fields of a policy read; dropped so `policy get --json` output works as input. */
const READ_ONLY_EXTENSIONS = ['daily_spent_ciphertext', 'daily_spent_day'];

const FLAG_OF: Record<string, string> = Object.fromEntries(POLICY_NAMES.map((n) => [n.field, n.flag]));

/** A renamed flag's value: the new name or its hidden old one, not both with different values. */
function renamed(value: string | undefined, old: string | undefined, flag: string, oldFlag: string): string | undefined {
  if (value !== undefined && old !== undefined && value !== old) {
    throw new UsageError(`${oldFlag} is the old name of ${flag}: give one of them`, undefined, 'usage');
  }
  return value ?? old;
}

function clearedField(name: string): string {
  const bare = name.trim().replace(/^--/, '');
  const field = CLEARABLE[bare] ?? ((POLICY_FIELDS as readonly string[]).includes(bare) ? bare : undefined);
  if (!field) {
    throw new UsageError(`--clear ${sanitize(name)}: not a policy flag (known: ${CLEARABLE_NAMES.join(', ')})`, undefined, 'invalid_policy');
  }
  return field;
}

/** A limit as a JSON number, refusing values a JSON number cannot carry exactly. */
function toJsonNumber(field: string, text: string): number {
  const n = Number(text);
  const exact = parseNonNegativeDecimal(text, 6);
  if (!Number.isFinite(n) || /e/i.test(String(n)) || parseNonNegativeDecimal(String(n), 6) !== exact) {
    throw new UsageError(`${FLAG_OF[field] ?? field} ${text} cannot be sent exactly as a JSON number (too many digits)`, undefined, 'invalid_policy');
  }
  return n;
}

/** Collects the fields the user gave (file first, flags override), validated locally. */
export async function policyFieldsFrom(ctx: Needs<'io'>, flags: PolicyFlags, mode: 'create' | 'patch'): Promise<PolicyFields> {
  let raw: Record<string, unknown> = {};
  if (flags.policyFile) {
    const text = flags.policyFile === '-' ? await readStdin(ctx.io) : readFileOrThrow(flags.policyFile);
    try {
      raw = JSON.parse(text) as Record<string, unknown>;
    } catch (err) {
      throw new UsageError(`--policy-file ${flags.policyFile} is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new UsageError(`--policy-file ${flags.policyFile} must hold a JSON object`);
    // Accept a whole `policy get --json` document or `{ "spend_policy": {...} }`.
    if (typeof raw.spend_policy === 'object' && raw.spend_policy !== null) raw = raw.spend_policy as Record<string, unknown>;
    // Fields a policy read carries that are not input (validatePolicyFields skips policy_id and updated_at).
    for (const readOnly of READ_ONLY_EXTENSIONS) delete raw[readOnly];
  }
  const byFlag = new Set<string>();
  const set = (field: string, value: unknown) => {
    if (value === undefined) return;
    raw[field] = value;
    byFlag.add(field);
  };
  set('daily_limit_usdc', flags.dailyLimit);
  set('per_transaction_limit_usdc', renamed(flags.perTransactionLimit, flags.perTxLimit, '--per-transaction-limit', '--per-tx-limit'));
  set('hitl_threshold_usdc', renamed(flags.approvalThreshold, flags.hitlThreshold, '--approval-threshold', '--hitl-threshold'));
  set('allowed_recipients', flags.allow);
  // Each --asset is checked on its own, like every --asset flag (invalid_asset, exit 2).
  set('assets', flags.asset?.map((a) => parseAssetFlag(a)));
  set('active_hours', flags.activeHours);
  // A count, sent as a JSON number; what does not read as a number goes as typed, for the rule to name.
  set('approvals_required', flags.approvalsRequired === undefined ? undefined : approvalsNumber(flags.approvalsRequired));
  for (const name of flags.clear ?? []) {
    const field = clearedField(name);
    if (byFlag.has(field)) throw new UsageError(`--clear ${sanitize(name)} contradicts ${FLAG_OF[field]}: give one of them`, undefined, 'usage');
    raw[field] = null;
  }
  const v = validatePolicyFields(raw, mode);
  if (!v.ok) {
    const flag = FLAG_OF[v.field.replace(/\[\d+\]$/, '')];
    throw new UsageError(`invalid policy: ${sanitize(v.message)}${flag ? ` (${flag})` : ''}`, undefined, v.code ?? 'invalid_policy');
  }
  // Limits travel as JSON numbers, as the API defines them.
  const fields: PolicyFields = { ...v.fields };
  for (const f of ['daily_limit_usdc', 'per_transaction_limit_usdc', 'hitl_threshold_usdc'] as const) {
    const value = fields[f];
    if (typeof value === 'string') fields[f] = toJsonNumber(f, value);
  }
  return fields;
}

function approvalsNumber(text: string): number | string {
  return /^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text;
}

function readFileOrThrow(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--policy-file ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}
