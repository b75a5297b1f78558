// Local simulation with the shared engine against the live policy. Sends nothing but reads.
import { parseTimestamp, TIMESTAMP_RULE } from '../../domain/timestamp.js';
import type { App } from '../../app.js';
import { SpendPolicySchema } from '../../api/schemas.js';
import { parseAmount, formatUnits, parseNonNegativeDecimal } from '../../domain/amount.js';
import { parseAssetFlag } from '../../cli/flags.js';
import { compilePolicy, evaluatePolicy, validatePolicyFields } from '../../domain/policy.js';
import { parseRecipient, RECIPIENT_RULE } from '../../domain/recipient.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { palette } from '../../io/colors.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { pickPolicyFields } from './policy-view.js';
import { resolveAgent } from './resolve.js';

interface CheckFlags {
  to: string;
  amount: string;
  asset?: string;
  at?: string;
  spentToday?: string;
}

export async function checkPolicy(app: App, ref: string, flags: CheckFlags): Promise<void> {
  const asset = parseAssetFlag(flags.asset);
  if (!parseRecipient(flags.to)) throw new UsageError(`--to ${RECIPIENT_RULE}`);
  const amount = parseAmount(flags.amount, asset);
  if (!amount.ok) throw new UsageError(`--amount ${amount.rule}`);
  // Read as UTC when it has no offset, like every time the service deals in (never local time).
  const atFlag = flags.at === undefined ? undefined : parseTimestamp(flags.at, { withoutOffset: 'utc' });
  if (flags.at !== undefined && !atFlag) throw new UsageError(`--at "${flags.at}" ${TIMESTAMP_RULE}`);
  const given = atFlag ? new Date(atFlag.ms) : undefined;

  const agent = await resolveAgent(app, ref);
  const client = await app.client();
  const { data, serverTime } = await client.get(`/v1/agents/${encodeURIComponent(agent.account_id)}/spend-policy`, { schema: SpendPolicySchema });
  // Default: the service's clock (its Date header), which is what it will judge by (the
  // sandbox's can be advanced); the local clock when it sends none.
  const at = given ?? (serverTime && !Number.isNaN(serverTime.getTime()) ? serverTime : new Date());
  const fields = validatePolicyFields(pickPolicyFields(data), 'create');
  if (!fields.ok) throw new CliError('failure', 'invalid_response', `the service returned a policy this tool cannot evaluate: ${fields.message}`);

  let spentToday = 0n;
  let spentSource = 'assumed 0: the service does not tell today\'s spend (use --spent-today)';
  if (flags.spentToday !== undefined) {
    const s = parseNonNegativeDecimal(flags.spentToday, 6);
    if (s === undefined) throw new UsageError('--spent-today must be a non-negative decimal with at most 6 decimals');
    spentToday = s;
    spentSource = 'from --spent-today';
  } else {
    const fromService = await spentTodayFromService(app, data, agent.account_id, at);
    if (fromService !== undefined) {
      spentToday = fromService;
      spentSource = 'decrypted locally from the service';
    }
  }

  const e = evaluatePolicy(compilePolicy(fields.fields), { to: flags.to, amount: amount.units, asset, at, spentToday });
  const fmt = (u: bigint) => formatUnits(u, 'USDG');
  if (app.json) {
    return printJson(app.io, {
      agent: agent.handle, decision: e.decision, ...(e.reason ? { reason: e.reason } : {}), message: e.message,
      checks: e.checks, at: at.toISOString(), spent_today: fmt(spentToday),
      ...(e.dailyRemaining === undefined ? {} : { daily_remaining: fmt(e.dailyRemaining) }),
      daily_resets_at: e.dailyResetsAt.toISOString(),
    });
  }
  const p = await palette(app.io);
  const verdict = { allow: p.green('ALLOW'), hold: p.yellow('HOLD'), deny: p.red('DENY') }[e.decision];
  // Messages and details quote the service's policy (recipient patterns, hours) and --to.
  app.io.out(`${verdict}  ${sanitize(e.message)}\n`);
  const mark = { passed: p.green('✓'), failed: p.red('✗'), held: p.yellow('⏸'), unrestricted: p.dim('·'), not_checked: p.dim('-') };
  for (const c of e.checks) app.io.out(`  ${mark[c.outcome]} ${sanitize(c.rule).padEnd(22)} ${sanitize(c.detail)}\n`);
  if (e.dailyRemaining !== undefined) {
    app.io.out(`today: ${fmt(spentToday)} spent (${spentSource}), ${fmt(e.dailyRemaining)} left, resets ${e.dailyResetsAt.toISOString()}\n`);
  }
  app.io.err(`simulated at ${at.toISOString()}; nothing was sent\n`);
}

/** Today's spend, when the service gives it as a ciphertext the owner can open. */
async function spentTodayFromService(app: App, policy: Record<string, unknown>, agentId: string, at: Date): Promise<bigint | undefined> {
  const ct = policy.daily_spent_ciphertext;
  const day = policy.daily_spent_day;
  if (typeof ct !== 'string' || typeof day !== 'string' || day !== at.toISOString().slice(0, 10)) return undefined;
  const reader = await app.reader();
  const text = reader?.dailySpent(agentId, day, ct);
  return text === undefined ? undefined : BigInt(text);
}
