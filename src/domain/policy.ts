// The spend-policy engine shared by the sandbox (enforcement) and the tool (`agent policy check`).
// Exact decimals (bigint micro-units), UTC, DESIGN.md's rule order:
//   asset, recipient, hours, per-transaction, daily → deny; above the HITL threshold → hold; else allow.
import { decimalsOf, isKnownAsset, KNOWN_ASSETS } from './assets.js';
import { parseNonNegativeDecimal, formatUnits } from './amount.js';
import { addressPatternTypo, parseRecipientPattern, matchesRecipient, type RecipientPattern } from './recipient-pattern.js';
import { formatMinute, inRange, parseTimeRange, utcDay, type TimeRange } from './time-range.js';
import { APPROVALS_REQUIRED_MAX, APPROVALS_REQUIRED_MIN, APPROVALS_REQUIRED_RULE, POLICY_FIELDS } from './policy-fields.js';

/** Policy fields as the API carries them (limits are JSON numbers; strings accepted for exactness). */
export interface PolicyFields {
  daily_limit_usdc?: number | string | null;
  per_transaction_limit_usdc?: number | string | null;
  allowed_recipients?: string[] | null;
  assets?: string[] | null;
  active_hours?: string | null;
  hitl_threshold_usdc?: number | string | null;
  /** Beyond the spec (DESIGN.md "Quorum"): distinct owner keys a held transaction needs; unset is 1. */
  approvals_required?: number | null;
}

export { APPROVALS_REQUIRED_MAX, APPROVALS_REQUIRED_MIN, APPROVALS_REQUIRED_RULE, POLICY_FIELDS };
const LIMIT_FIELDS = ['daily_limit_usdc', 'per_transaction_limit_usdc', 'hitl_threshold_usdc'] as const;
/** Read-only fields a user may paste back from `policy get`; ignored on input. */
const READ_ONLY = new Set(['policy_id', 'updated_at']);
const LIMIT_DECIMALS = 6;

export interface Policy {
  dailyLimit?: bigint;
  perTransactionLimit?: bigint;
  recipients?: Array<{ text: string; pattern: RecipientPattern }>;
  assets?: string[];
  activeHours?: TimeRange & { text: string };
  hitlThreshold?: bigint;
  /** Set only when more than one approval is needed. */
  approvalsRequired?: number;
}

export type PolicyValidation =
  | { ok: true; fields: PolicyFields }
  /** `code`: set when the rule broken has a code of its own (a mistyped address). */
  | { ok: false; field: string; rule: string; message: string; code?: 'invalid_address_checksum' };

function fail(field: string, rule: string, code?: 'invalid_address_checksum'): PolicyValidation {
  return { ok: false, field, rule, message: `${field} ${rule}`, ...(code ? { code } : {}) };
}

/** The rule `approvals_required` breaks, if any: a JSON number (a string is named as such, "2" is not 2). */
function approvalsRule(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= APPROVALS_REQUIRED_MIN && value <= APPROVALS_REQUIRED_MAX) return undefined;
  if (typeof value === 'string') return `${APPROVALS_REQUIRED_RULE}, as a JSON number (got the string ${JSON.stringify(value.slice(0, 20))})`;
  return `${APPROVALS_REQUIRED_RULE} (got ${typeof value === 'number' ? String(value) : typeof value})`;
}

/** A limit as an exact decimal string, or a rule it breaks. */
function limitText(value: unknown): string | { rule: string } {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { rule: 'must be a finite number' };
    if (value < 0) return { rule: 'must not be negative' };
    text = String(value);
    if (/e/i.test(text)) return { rule: `must have at most ${LIMIT_DECIMALS} decimal places and be below 1e21` };
  } else if (typeof value === 'string') {
    text = value.trim();
    if (text.startsWith('-')) return { rule: 'must not be negative' };
  } else {
    return { rule: 'must be a number' };
  }
  const units = parseNonNegativeDecimal(text, LIMIT_DECIMALS);
  if (units === undefined) return { rule: `must be a non-negative decimal with at most ${LIMIT_DECIMALS} decimal places` };
  if (units > MAX_LIMIT_UNITS) return { rule: `must be at most ${MAX_LIMIT} (one billion)` };
  return text;
}

/**
 * The largest limit. Limits travel as JSON numbers: one billion with six decimals is at most 15
 * significant digits, so every accepted limit reads back exactly as it was given.
 */
export const MAX_LIMIT = 1_000_000_000;
const MAX_LIMIT_UNITS = BigInt(MAX_LIMIT) * 10n ** BigInt(LIMIT_DECIMALS);

/**
 * Validates policy fields (a whole policy on create, any subset on patch). `null` clears a field
 * on patch. Returns normalised fields or the first rule broken, naming the field. `read` is a
 * whole policy as a service answers it: the create rules but for those that only guard what a
 * person types (an address pattern's EIP-55 checksum), so a policy a service holds is evaluated
 * as it is.
 */
export function validatePolicyFields(input: unknown, mode: 'create' | 'patch' | 'read'): PolicyValidation {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return fail('spend_policy', 'must be an object');
  const out: PolicyFields = {};
  for (const [field, value] of Object.entries(input)) {
    if (READ_ONLY.has(field)) continue;
    if (!(POLICY_FIELDS as readonly string[]).includes(field)) return fail(field, `is not a spend policy field (known: ${POLICY_FIELDS.join(', ')})`);
    if (value === null || value === undefined) {
      if (mode === 'patch') (out as Record<string, null>)[field] = null;
      continue;
    }
    if ((LIMIT_FIELDS as readonly string[]).includes(field)) {
      const t = limitText(value);
      if (typeof t !== 'string') return fail(field, t.rule);
      (out as Record<string, number | string>)[field] = typeof value === 'number' ? value : t;
    } else if (field === 'allowed_recipients' || field === 'assets') {
      if (!Array.isArray(value)) return fail(field, 'must be an array of strings');
      if (value.length > 100) return fail(field, 'must have at most 100 entries');
      const items: string[] = [];
      for (const [i, item] of value.entries()) {
        if (typeof item !== 'string') return fail(`${field}[${i}]`, 'must be a string');
        if (field === 'assets') {
          const asset = item.trim().toUpperCase();
          if (!isKnownAsset(asset)) return fail(`${field}[${i}]`, `must be one of ${KNOWN_ASSETS.join(', ')} (got "${item}")`);
          items.push(asset);
        } else {
          const p = parseRecipientPattern(item);
          if ('rule' in p) return fail(`${field}[${i}]`, `${p.rule} (got "${item}")`);
          const typo = mode === 'read' ? undefined : addressPatternTypo(item);
          if (typo) return fail(`${field}[${i}]`, `"${item.trim()}" ${typo}`, 'invalid_address_checksum');
          items.push(item.trim());
        }
      }
      out[field] = items;
    } else if (field === 'active_hours') {
      if (typeof value !== 'string') return fail(field, 'must be a string HH:MM-HH:MM');
      const r = parseTimeRange(value.trim());
      if ('rule' in r) return fail(field, r.rule);
      out.active_hours = value.trim();
    } else if (field === 'approvals_required') {
      const rule = approvalsRule(value);
      if (rule) return fail(field, rule);
      out.approvals_required = value as number;
    }
  }
  return { ok: true, fields: out };
}

function units(v: number | string | null | undefined): bigint | undefined {
  if (v === null || v === undefined) return undefined;
  return parseNonNegativeDecimal(typeof v === 'number' ? String(v) : v.trim(), LIMIT_DECIMALS);
}

/** Turns validated fields into the engine's form. Omitted or null fields mean no restriction. */
export function compilePolicy(fields: PolicyFields): Policy {
  const p: Policy = {};
  const daily = units(fields.daily_limit_usdc);
  if (daily !== undefined) p.dailyLimit = daily;
  const perTx = units(fields.per_transaction_limit_usdc);
  if (perTx !== undefined) p.perTransactionLimit = perTx;
  const hitl = units(fields.hitl_threshold_usdc);
  if (hitl !== undefined) p.hitlThreshold = hitl;
  if (fields.allowed_recipients) {
    p.recipients = fields.allowed_recipients.map((text) => ({ text, pattern: parseRecipientPattern(text) as RecipientPattern }));
  }
  if (fields.assets) p.assets = fields.assets.map((a) => a.toUpperCase());
  if (fields.active_hours) p.activeHours = { ...(parseTimeRange(fields.active_hours) as TimeRange), text: fields.active_hours };
  if (typeof fields.approvals_required === 'number' && fields.approvals_required > 1) p.approvalsRequired = fields.approvals_required;
  return p;
}

/** Applies a patch: only the fields sent change; null clears one. */
export function mergePolicyFields(current: PolicyFields, patch: PolicyFields): PolicyFields {
  const merged: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged as PolicyFields;
}

export type DenyReason = 'asset_not_allowed' | 'recipient_not_allowed' | 'outside_active_hours' | 'per_transaction_limit' | 'daily_limit';

export interface RuleCheck {
  rule: 'asset' | 'recipient' | 'active_hours' | 'per_transaction_limit' | 'daily_limit' | 'hitl_threshold';
  /** passed; failed (decided a deny); held (decided a hold); skipped (no restriction / not reached). */
  outcome: 'passed' | 'failed' | 'held' | 'unrestricted' | 'not_checked';
  detail: string;
}

export interface Attempt {
  to: string;
  /** Amount in the asset's minor units (6 decimals for USDG/USDC). */
  amount: bigint;
  asset: string;
  at: Date;
  /** Already spent in the UTC day containing `at` (settled and pending, not held or rejected). */
  spentToday: bigint;
}

export interface Evaluation {
  decision: 'allow' | 'hold' | 'deny';
  reason?: DenyReason;
  message: string;
  checks: RuleCheck[];
  /** What is left of today's limit before this attempt, when there is a daily limit. */
  dailyRemaining?: bigint;
  /** When the daily window resets (next UTC midnight). */
  dailyResetsAt: Date;
}

const fmt = (u: bigint) => formatUnits(u, 'USDG', { minFraction: 2 });

/** Converts an asset amount to the policy's 6-decimal USD units (USDG and USDC count 1:1). */
export function toPolicyUnits(amount: bigint, asset: string): bigint {
  const d = decimalsOf(asset);
  return d === LIMIT_DECIMALS ? amount : d > LIMIT_DECIMALS ? amount / 10n ** BigInt(d - LIMIT_DECIMALS) : amount * 10n ** BigInt(LIMIT_DECIMALS - d);
}

export function evaluatePolicy(policy: Policy, attempt: Attempt): Evaluation {
  const checks: RuleCheck[] = [];
  const amount = toPolicyUnits(attempt.amount, attempt.asset);
  const { end } = utcDay(attempt.at);
  const dailyRemaining = policy.dailyLimit === undefined ? undefined : policy.dailyLimit > attempt.spentToday ? policy.dailyLimit - attempt.spentToday : 0n;
  const base = { dailyRemaining, dailyResetsAt: end };
  const deny = (reason: DenyReason, message: string): Evaluation => {
    const order: RuleCheck['rule'][] = ['asset', 'recipient', 'active_hours', 'per_transaction_limit', 'daily_limit', 'hitl_threshold'];
    for (const rule of order.slice(checks.length)) checks.push({ rule, outcome: 'not_checked', detail: 'not reached' });
    return { decision: 'deny', reason, message, checks, ...base };
  };

  const asset = attempt.asset.toUpperCase();
  if (!policy.assets) checks.push({ rule: 'asset', outcome: 'unrestricted', detail: 'any asset' });
  else if (policy.assets.includes(asset)) checks.push({ rule: 'asset', outcome: 'passed', detail: `${asset} is in [${policy.assets.join(', ')}]` });
  else {
    checks.push({ rule: 'asset', outcome: 'failed', detail: `${asset} is not in [${policy.assets.join(', ')}]` });
    return deny('asset_not_allowed', `asset ${asset} is not allowed for this agent`);
  }

  if (!policy.recipients) checks.push({ rule: 'recipient', outcome: 'unrestricted', detail: 'any recipient' });
  else {
    const hit = policy.recipients.find((r) => matchesRecipient(r.pattern, attempt.to));
    if (hit) checks.push({ rule: 'recipient', outcome: 'passed', detail: `${attempt.to} matches ${hit.text}` });
    else {
      checks.push({ rule: 'recipient', outcome: 'failed', detail: `${attempt.to} matches none of [${policy.recipients.map((r) => r.text).join(', ')}]` });
      return deny('recipient_not_allowed', `recipient ${attempt.to} is not in the agent's allowed recipients`);
    }
  }

  const hh = `${formatMinute(attempt.at.getUTCHours() * 60 + attempt.at.getUTCMinutes())} UTC`;
  if (!policy.activeHours) checks.push({ rule: 'active_hours', outcome: 'unrestricted', detail: 'any time' });
  else if (inRange(policy.activeHours, attempt.at)) checks.push({ rule: 'active_hours', outcome: 'passed', detail: `${hh} is within ${policy.activeHours.text}` });
  else {
    checks.push({ rule: 'active_hours', outcome: 'failed', detail: `${hh} is outside ${policy.activeHours.text}` });
    return deny('outside_active_hours', `${hh} is outside the agent's active hours ${policy.activeHours.text} (UTC)`);
  }

  if (policy.perTransactionLimit === undefined) checks.push({ rule: 'per_transaction_limit', outcome: 'unrestricted', detail: 'no per-transaction limit' });
  else if (amount <= policy.perTransactionLimit) checks.push({ rule: 'per_transaction_limit', outcome: 'passed', detail: `${fmt(amount)} ≤ ${fmt(policy.perTransactionLimit)}` });
  else {
    checks.push({ rule: 'per_transaction_limit', outcome: 'failed', detail: `${fmt(amount)} > ${fmt(policy.perTransactionLimit)}` });
    return deny('per_transaction_limit', `amount exceeds the per-transaction limit of ${fmt(policy.perTransactionLimit)}`);
  }

  if (policy.dailyLimit === undefined) checks.push({ rule: 'daily_limit', outcome: 'unrestricted', detail: 'no daily limit' });
  else if (attempt.spentToday + amount <= policy.dailyLimit) {
    checks.push({ rule: 'daily_limit', outcome: 'passed', detail: `${fmt(attempt.spentToday)} spent today + ${fmt(amount)} ≤ ${fmt(policy.dailyLimit)}` });
  } else {
    checks.push({ rule: 'daily_limit', outcome: 'failed', detail: `${fmt(attempt.spentToday)} spent today + ${fmt(amount)} > ${fmt(policy.dailyLimit)}` });
    return deny('daily_limit', `amount would exceed the daily limit of ${fmt(policy.dailyLimit)} (${fmt(dailyRemaining ?? 0n)} left today)`);
  }

  if (policy.hitlThreshold !== undefined && amount > policy.hitlThreshold) {
    const n = policy.approvalsRequired;
    const who = n === undefined ? 'human approval' : `${n} approvals (each by a different owner key)`;
    checks.push({ rule: 'hitl_threshold', outcome: 'held', detail: `${fmt(amount)} > ${fmt(policy.hitlThreshold)}: needs ${who}` });
    return { decision: 'hold', message: `amount is above the approval threshold of ${fmt(policy.hitlThreshold)}: held for ${who}`, checks, ...base };
  }
  checks.push(policy.hitlThreshold === undefined
    ? { rule: 'hitl_threshold', outcome: 'unrestricted', detail: 'no approval threshold' }
    : { rule: 'hitl_threshold', outcome: 'passed', detail: `${fmt(amount)} ≤ ${fmt(policy.hitlThreshold)}` });
  return { decision: 'allow', message: 'allowed: signed and sent at once', checks, ...base };
}

/** Policies that validate but cannot do what the user likely meant. */
export function policyWarnings(policy: Policy): string[] {
  const w: string[] = [];
  if (policy.hitlThreshold !== undefined && policy.perTransactionLimit !== undefined && policy.hitlThreshold >= policy.perTransactionLimit) {
    w.push(`the approval threshold (${fmt(policy.hitlThreshold)}) is at or above the per-transaction limit (${fmt(policy.perTransactionLimit)}): nothing will ever be held for approval`);
  }
  if (policy.perTransactionLimit !== undefined && policy.dailyLimit !== undefined && policy.perTransactionLimit > policy.dailyLimit) {
    w.push(`the per-transaction limit (${fmt(policy.perTransactionLimit)}) is above the daily limit (${fmt(policy.dailyLimit)}): the daily limit caps every transaction`);
  }
  if (policy.dailyLimit === 0n || policy.perTransactionLimit === 0n) w.push('a limit of 0 denies every transaction');
  if (policy.recipients && policy.recipients.length === 0) w.push('an empty allowed_recipients list denies every recipient');
  if (policy.assets && policy.assets.length === 0) w.push('an empty assets list denies every asset');
  if (policy.approvalsRequired !== undefined && policy.hitlThreshold === undefined) {
    w.push(`approvals_required ${policy.approvalsRequired} has no effect without an approval threshold: nothing is held for approval`);
  }
  return w;
}
