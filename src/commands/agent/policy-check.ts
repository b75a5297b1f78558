// Local simulation with the shared engine against the live policy. Sends nothing but reads.
import { parseTimestamp, TIMESTAMP_RULE } from '../../domain/timestamp.js';
import type { Needs } from '../../runtime/factory.js';
import { SpendPolicySchema } from '../../api/schemas.js';
import { parseAmount, formatUnits, parseNonNegativeDecimal } from '../../domain/amount.js';
import { parseAssetFlag } from '../../runtime/flags.js';
import { compilePolicy, evaluatePolicy, validatePolicyFields } from '../../domain/policy.js';
import { checkRecipient } from '../../domain/recipient.js';
import { CliError, UsageError } from '../../errors.js';
import { palette } from '../../io/colors.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { judgedAt, spentTodayFromService, verdictLines } from './policy-preview.js';
import { pickPolicyFields } from './policy-view.js';
import { resolveAgent } from './resolve.js';

interface CheckFlags {
  to: string;
  amount: string;
  asset?: string;
  at?: string;
  spentToday?: string;
}

export async function checkPolicy(ctx: Needs<'client' | 'io' | 'json' | 'reader' | 'serviceClock'>, ref: string, flags: CheckFlags): Promise<void> {
  const asset = parseAssetFlag(flags.asset);
  const to = checkRecipient(flags.to);
  if (!to.ok) throw new UsageError(`--to "${sanitize(flags.to)}" ${to.rule}`, undefined, to.code);
  const amount = parseAmount(flags.amount, asset);
  if (!amount.ok) throw new UsageError(`--amount ${amount.rule}`);
  // Read as UTC when it has no offset, like every time the service deals in (never local time).
  const atFlag = flags.at === undefined ? undefined : parseTimestamp(flags.at, { withoutOffset: 'utc' });
  if (flags.at !== undefined && !atFlag) throw new UsageError(`--at "${flags.at}" ${TIMESTAMP_RULE}`);
  const given = atFlag ? new Date(atFlag.ms) : undefined;

  const agent = await resolveAgent(ctx, ref);
  const client = await ctx.client();
  const { data, serverTime } = await client.get(`/v1/agents/${encodeURIComponent(agent.account_id)}/spend-policy`, { schema: SpendPolicySchema });
  const at = given ?? judgedAt(serverTime, ctx.serviceClock);
  const fields = validatePolicyFields(pickPolicyFields(data), 'read');
  if (!fields.ok) throw new CliError('failure', 'invalid_response', `the service returned a policy this tool cannot evaluate: ${fields.message}`);

  let spentToday = 0n;
  let spentSource = 'assumed 0: the service does not tell today\'s spend (use --spent-today)';
  if (flags.spentToday !== undefined) {
    const s = parseNonNegativeDecimal(flags.spentToday, 6);
    if (s === undefined) throw new UsageError('--spent-today must be a non-negative decimal with at most 6 decimals');
    spentToday = s;
    spentSource = 'from --spent-today';
  } else {
    const fromService = await spentTodayFromService(ctx, data, agent.account_id, at);
    if (fromService !== undefined) {
      spentToday = fromService;
      spentSource = 'decrypted locally from the service';
    }
  }

  const e = evaluatePolicy(compilePolicy(fields.fields), { to: flags.to, amount: amount.units, asset, at, spentToday });
  const fmt = (u: bigint) => formatUnits(u, 'USDG');
  if (ctx.json) {
    return printJson(ctx.io, {
      agent: agent.handle, decision: e.decision, ...(e.reason ? { reason: e.reason } : {}), message: e.message,
      checks: e.checks, at: at.toISOString(), spent_today: fmt(spentToday),
      ...(e.dailyRemaining === undefined ? {} : { daily_remaining: fmt(e.dailyRemaining) }),
      daily_resets_at: e.dailyResetsAt.toISOString(),
    });
  }
  const p = await palette(ctx.io);
  ctx.io.out(`${verdictLines(p, e).join('\n')}\n`);
  if (e.dailyRemaining !== undefined) {
    ctx.io.out(`today: ${fmt(spentToday)} spent (${spentSource}), ${fmt(e.dailyRemaining)} left, resets ${e.dailyResetsAt.toISOString()}\n`);
  }
  ctx.io.err(`simulated at ${at.toISOString()}; nothing was sent\n`);
}
