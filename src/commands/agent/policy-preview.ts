// What an agent's spend policy would decide about planned transfers, evaluated here with the
// engine the service itself runs (src/domain/policy.ts): `transfer send --dry-run` and `transfer
// batch --dry-run`. The policy and today's spend are read with the agent's own key; nothing is
// sent. Rows of one run add up against the daily limit in order (evaluate's spentBefore).
import type { Needs } from '../../runtime/factory.js';
import type { ServiceClock } from '../../api/service-clock.js';
import { SpendPolicySchema } from '../../api/schemas.js';
import { compilePolicy, evaluatePolicy, toPolicyUnits, validatePolicyFields, type DenyReason, type Policy, type RuleCheck } from '../../domain/policy.js';
import { ApiError, CliError } from '../../errors.js';
import type { Palette } from '../../io/colors.js';
import { sanitize } from '../../io/sanitize.js';
import { pickPolicyFields } from './policy-view.js';
import { agentOwner } from '../../domain/handle.js';
import { placeholder, svc } from '../../domain/shell-command.js';

export interface PreviewRow {
  to: string;
  /** The amount in the asset's minor units (parseAmount). */
  amountUnits: bigint;
  asset: string;
}

export interface PreviewResult {
  decision: 'allow' | 'hold' | 'deny';
  /** Set when denied: the rule, as the service's `error.reason` would say. */
  reason?: DenyReason;
  message: string;
  checks: RuleCheck[];
}

export interface RowPreview extends PreviewResult {
  /** What this row adds to today's spend if it goes through (0 when denied or held: DESIGN's daily-limit rule). */
  spendUnits: bigint;
  /** What was left of the daily limit before this row (spentToday + spentBefore), when there is one. */
  dailyRemaining?: bigint;
  /** When the daily window resets (the next UTC midnight after `at`). */
  dailyResetsAt: Date;
}

/** Where `spentToday` comes from. */
export type SpentTodaySource =
  /** decrypted here from the service's answer (the sandbox encrypts it to the reader's viewing key) */
  | 'service'
  /** the policy has no daily limit: today's spend does not matter and was not read */
  | 'not_needed'
  /** the service does not give it, or it does not decrypt here (no decryption key): assumed 0 */
  | 'unknown';

export interface PolicyPreview {
  /** The agent's handle. */
  agent: string;
  /**
   * Evaluates one planned transfer given what earlier rows of the same run already spent today
   * (policy units as evaluatePolicy uses, i.e. toPolicyUnits), at the service's time.
   */
  evaluate(row: PreviewRow, spentBefore: bigint): RowPreview;
  /** Today's spend already on the service when the preview was loaded (0 unless spentTodaySource is `service`). */
  spentToday: bigint;
  spentTodaySource: SpentTodaySource;
  /** The service's time the rows are evaluated at (its Date header when the policy was read). */
  at: Date;
  /** The agent's daily limit in policy units, when it has one. */
  dailyLimit?: bigint;
}

/** undefined when the key is not an agent's; throws a CliError when the policy cannot be read. */
export async function loadPolicyPreview(ctx: Needs<'account' | 'client' | 'reader' | 'serviceClock'>): Promise<PolicyPreview | undefined> {
  const account = await ctx.account();
  if (agentOwner(account.handle) === undefined) return undefined;
  const agent = account.handle;
  const client = await ctx.client();
  let read;
  try {
    read = await client.get(`/v1/agents/${encodeURIComponent(account.account_id)}/spend-policy`, { schema: SpendPolicySchema });
  } catch (err) {
    // The spec answers 403 not_agent_owner to a key that does not own the agent: a service may
    // count the agent itself out. Then nothing here can tell what the policy would decide.
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) {
      throw new CliError('failure', 'policy_unavailable', `cannot preview the spend policy of ${sanitize(agent)}: the service does not let the agent's own key read it (${sanitize(err.code)}), so whether it would be sent, held or denied is unknown`, {
        hint: `the owner can simulate it: ${svc`--profile ${placeholder('owner-profile')} agent policy check ${agent} --to ${placeholder('recipient')} --amount ${placeholder('amount')}`}`,
        details: { agent },
      });
    }
    throw err;
  }
  const { data, serverTime } = read;
  const fields = validatePolicyFields(pickPolicyFields(data), 'read');
  if (!fields.ok) throw new CliError('failure', 'invalid_response', `the service returned a policy this tool cannot evaluate: ${fields.message}`);
  const policy = compilePolicy(fields.fields);
  const at = judgedAt(serverTime, ctx.serviceClock);

  let spentToday = 0n;
  let spentTodaySource: SpentTodaySource = 'not_needed';
  if (policy.dailyLimit !== undefined) {
    const spent = await spentTodayFromService(ctx, data, account.account_id, at);
    spentTodaySource = spent === undefined ? 'unknown' : 'service';
    spentToday = spent ?? 0n;
  }
  return {
    agent,
    spentToday,
    spentTodaySource,
    at,
    ...(policy.dailyLimit !== undefined ? { dailyLimit: policy.dailyLimit } : {}),
    evaluate: (row, spentBefore) => evaluateRow(policy, row, at, spentToday + spentBefore),
  };
}

/**
 * The instant a policy is judged at: the service's clock (the sandbox's can be advanced), which
 * is what the service will judge by: the policy read's Date header, else the run's service
 * clock (ours until an answer has told the service's time).
 */
export function judgedAt(serverTime: Date | undefined, serviceClock: ServiceClock): Date {
  return serverTime && !Number.isNaN(serverTime.getTime()) ? serverTime : new Date(serviceClock.now());
}

function evaluateRow(policy: Policy, row: PreviewRow, at: Date, spent: bigint): RowPreview {
  const e = evaluatePolicy(policy, { to: row.to, amount: row.amountUnits, asset: row.asset, at, spentToday: spent });
  return {
    decision: e.decision,
    ...(e.reason ? { reason: e.reason } : {}),
    message: e.message,
    checks: e.checks,
    spendUnits: e.decision === 'allow' ? toPolicyUnits(row.amountUnits, row.asset) : 0n,
    ...(e.dailyRemaining !== undefined ? { dailyRemaining: e.dailyRemaining } : {}),
    dailyResetsAt: e.dailyResetsAt,
  };
}

/**
 * Today's spend, when the service gives it as a ciphertext this key's decryption key opens (the
 * sandbox's policy read carries it encrypted to the reader: the owner, or the agent itself).
 */
export async function spentTodayFromService(ctx: Needs<'reader'>, policy: Record<string, unknown>, agentId: string, at: Date): Promise<bigint | undefined> {
  const ct = policy.daily_spent_ciphertext;
  const day = policy.daily_spent_day;
  if (typeof ct !== 'string' || typeof day !== 'string' || day !== at.toISOString().slice(0, 10)) return undefined;
  const reader = await ctx.reader();
  const text = reader?.dailySpent(agentId, day, ct);
  return text === undefined || !/^\d+$/.test(text) ? undefined : BigInt(text);
}

// ---- the verdict for a person (policy check and send --dry-run look alike) ----------------------

/** `ALLOW  message`, then one line per rule with its mark; sanitised, painted. */
export function verdictLines(p: Palette, e: { decision: 'allow' | 'hold' | 'deny'; message: string; checks: ReadonlyArray<{ rule: string; outcome: string; detail: string }> }): string[] {
  const verdict = { allow: p.green('ALLOW'), hold: p.yellow('HOLD'), deny: p.red('DENY') }[e.decision];
  const mark: Record<string, string> = { passed: p.green('✓'), failed: p.red('✗'), held: p.yellow('⏸'), unrestricted: p.dim('·'), not_checked: p.dim('-') };
  return [
    // Messages and details quote the service's policy (recipient patterns, hours) and the recipient.
    `${verdict}  ${sanitize(e.message)}`,
    ...e.checks.map((c) => `  ${mark[c.outcome] ?? '?'} ${sanitize(c.rule).padEnd(22)} ${sanitize(c.detail)}`),
  ];
}
