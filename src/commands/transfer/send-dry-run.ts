// `svc transfer send --dry-run`: everything a real send checks here, and nothing sent. The
// request was validated already (buildTransferRequest: recipient and its EIP-55 checksum, amount,
// asset, memo, idempotency key). For an agent's key its spend policy is evaluated locally with
// the service's own engine (agent/policy-preview.ts); then, where the send would go through, the
// balance, decrypted locally. Only reads are made. The exit code is the real send's: 0 sent,
// 8 held for approval, 6 denied by the policy or short of funds (docs/exit-codes.md).
import type { Needs } from '../../runtime/factory.js';
import { BalancesSchema } from '../../api/schemas.js';
import { formatUnits, parseAmount } from '../../domain/amount.js';
import type { DenyReason, RuleCheck } from '../../domain/policy.js';
import { SilentExit } from '../../errors.js';
import { addressDisplay } from '../../io/addresses.js';
import { palette } from '../../io/colors.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { loadPolicyPreview, verdictLines, type PolicyPreview, type RowPreview } from '../agent/policy-preview.js';
import type { RequestFlags, TransferRequest } from '../../core/request.js';
import { Payment } from '../../core/payment.js';


/** A check of the dry run: the policy's rules (agents), then the balance. */
export interface DryRunCheck {
  rule: RuleCheck['rule'] | 'balance';
  outcome: RuleCheck['outcome'];
  detail: string;
}

export interface Verdict {
  decision: 'allow' | 'hold' | 'deny';
  reason?: DenyReason | 'insufficient_balance';
  message: string;
  checks: DryRunCheck[];
}

/** What a dry run found: the verdict, and what it was judged with (for its printers). */
export interface DryRun {
  verdict: Verdict;
  /** The agent's policy as read (undefined: not an agent's key). */
  preview: PolicyPreview | undefined;
  row: RowPreview | undefined;
  /** The sending account's handle. */
  from: string;
  units: bigint;
}

/** The verdict of a validated request, from reads only (`transfer send --dry-run`, `svc mcp`'s check_policy). */
export async function dryRunVerdict(ctx: Needs<'account' | 'client' | 'reader' | 'serviceClock'>, req: TransferRequest): Promise<DryRun> {
  const parsed = parseAmount(req.amount, req.asset);
  if (!parsed.ok) throw new Error('dryRunVerdict: the request was not validated'); // buildTransferRequest did
  const units = parsed.units;
  const preview = await loadPolicyPreview(ctx);
  const from = (await ctx.account()).handle;
  const row: RowPreview | undefined = preview?.evaluate({ to: req.to, amountUnits: units, asset: req.asset }, 0n);

  const verdict: Verdict = row
    ? { decision: row.decision, ...(row.reason ? { reason: row.reason } : {}), message: row.message, checks: [...row.checks] }
    : { decision: 'allow', message: `would be sent: ${from} is not an agent, so no spend policy applies`, checks: [] };

  // The service checks the balance after the policy, and only for a transfer it makes now.
  if (verdict.decision === 'allow') {
    const balance = await balanceCheck(ctx, req.asset, units);
    verdict.checks.push(balance);
    if (balance.outcome === 'failed') {
      verdict.decision = 'deny';
      verdict.reason = 'insufficient_balance';
      verdict.message = `${from} does not have enough ${req.asset} for this transfer`;
    }
  } else {
    verdict.checks.push({
      rule: 'balance',
      outcome: 'not_checked',
      detail: verdict.decision === 'hold' ? 'a held transfer reserves nothing until it is approved' : 'not reached',
    });
  }
  return { verdict, preview, row, from, units };
}

export async function dryRunSend(ctx: Needs<'account' | 'auth' | 'client' | 'clock' | 'env' | 'io' | 'json' | 'reader' | 'serviceClock'>, req: TransferRequest, opts: RequestFlags): Promise<void> {
  // A key this account has had accepted: the real run would send nothing, and says so.
  if (opts.idempotencyKey !== undefined && (await alreadySent(ctx, req, opts.idempotencyKey))) return;
  const { verdict, preview, row, from, units } = await dryRunVerdict(ctx, req);

  const at = preview?.at ?? new Date(ctx.serviceClock.now());
  const fmt = (u: bigint) => formatUnits(u, 'USDG');
  const spentUnknown = preview?.spentTodaySource === 'unknown';
  if (ctx.json) {
    printJson(ctx.io, {
      dry_run: true,
      decision: verdict.decision,
      ...(verdict.reason ? { reason: verdict.reason } : {}),
      message: verdict.message,
      request: req,
      ...(opts.idempotencyKey !== undefined ? { idempotency_key: opts.idempotencyKey } : {}),
      from,
      ...(preview ? { agent: preview.agent } : {}),
      checks: verdict.checks,
      at: at.toISOString(),
      ...(preview?.spentTodaySource === 'service' ? { spent_today: fmt(preview.spentToday) } : {}),
      ...(spentUnknown ? { spent_today_unknown: true } : {}),
      ...(row?.dailyRemaining !== undefined ? { daily_remaining: fmt(row.dailyRemaining) } : {}),
      ...(row && preview?.dailyLimit !== undefined ? { daily_resets_at: row.dailyResetsAt.toISOString() } : {}),
    });
  } else {
    const p = await palette(ctx.io);
    // Lines for a person, piped or not (as `agent policy check` prints): addresses in EIP-55 form.
    const show = await addressDisplay('table');
    const auth = await ctx.auth();
    const what = [
      `${formatUnits(units, req.asset)} ${req.asset} to ${sanitize(show(req.to))} from ${sanitize(from)}`,
      req.confidential ? 'confidential' : 'standard (the amount PUBLIC on chain)',
      ...(req.memo !== undefined ? ['with a memo'] : []),
      ...(opts.idempotencyKey !== undefined ? [`idempotency key ${sanitize(opts.idempotencyKey)}`] : []),
    ].join(', ');
    const lines = [
      `${p.badge(auth.environment)} ${p.bold('dry run')}: would send ${what}`,
      ...verdictLines(p, verdict),
    ];
    if (row?.dailyRemaining !== undefined && preview) {
      lines.push(spentUnknown
        ? `today: spend unknown here (${p.yellow('counted as 0')}: the daily limit may still deny it), resets ${row.dailyResetsAt.toISOString()}`
        : `today: ${fmt(preview.spentToday)} spent (decrypted locally), ${fmt(row.dailyRemaining)} left, resets ${row.dailyResetsAt.toISOString()}`);
    }
    ctx.io.out(`${lines.join('\n')}\n`);
    if (spentUnknown) {
      ctx.io.err(`warning: today's spend of ${sanitize(preview!.agent)} does not decrypt here (no decryption key for this profile?): the daily limit was checked as if nothing had been spent today\n`);
    }
    ctx.io.err(`dry run at ${at.toISOString()}; nothing was sent\n`);
  }
  // The verdict is the result: a hold or a denial exits as the real send would (8, 6), silently.
  if (verdict.decision === 'hold') throw new SilentExit('held', 'would_hold');
  if (verdict.decision === 'deny') throw new SilentExit('refused', verdict.reason ?? 'would_deny');
}

/**
 * What the send journal says of the key, as the real run would read it: a key accepted before is
 * reported (and exits as the real run would: 0, or 8 for a held transaction), a key used for
 * another payment or tried too long ago is the real run's error; true when the dry run is over.
 */
async function alreadySent(ctx: Needs<'account' | 'client' | 'clock' | 'env' | 'io' | 'json' | 'serviceClock'>, req: TransferRequest, key: string): Promise<boolean> {
  const prior = await Payment.peek(ctx, req, key);
  if (prior?.kind !== 'earlier') return false;
  const earlier = prior.earlier;
  const held = earlier.transactionId !== undefined && earlier.transferId === undefined;
  const what = held ? `held transaction ${earlier.transactionId}` : `transfer ${earlier.transferId}`;
  const message = `would not send: already sent under idempotency key ${key} on ${earlier.at} (${what}); a real run shows it and sends nothing`;
  if (ctx.json) {
    printJson(ctx.io, {
      dry_run: true,
      decision: 'already_sent',
      message,
      request: req,
      idempotency_key: key,
      ...(earlier.transferId ? { transfer_id: earlier.transferId } : {}),
      ...(earlier.transactionId ? { transaction_id: earlier.transactionId } : {}),
      sent_at: earlier.at,
    });
  } else {
    ctx.io.out(`${sanitize(`dry run: ${message}`)}\n`);
    ctx.io.err('nothing was sent\n');
  }
  if (held) throw new SilentExit('held', 'already_held');
  return true;
}

/**
 * The balance against the amount: decrypted locally when a decryption key is set; a zero balance
 * is known without one (the service says whether each asset is non-zero). A balance that does not
 * open here is "not checked"; an error of the read itself (401, 403 kyc_required …) is reported as
 * for any command, with its exit code.
 */
async function balanceCheck(ctx: Needs<'client' | 'reader'>, asset: string, units: bigint): Promise<DryRunCheck> {
  const client = await ctx.client();
  const readerReady = ctx.reader();
  readerReady.catch(() => {});
  const { data } = await client.get('/v1/accounts/me/balances', { schema: BalancesSchema });
  const entry = data.balances.find((b) => b.asset === asset);
  if (!entry || entry.nonzero === false) return { rule: 'balance', outcome: 'failed', detail: `no ${asset} balance` };
  let reader;
  try {
    reader = await readerReady;
  } catch {
    reader = undefined;
  }
  const have = reader?.balanceUnits(entry);
  if (have === undefined) {
    return { rule: 'balance', outcome: 'not_checked', detail: `the ${asset} balance is encrypted and does not decrypt here (no decryption key?)` };
  }
  return have >= units
    ? { rule: 'balance', outcome: 'passed', detail: `enough ${asset} (decrypted locally)` }
    : { rule: 'balance', outcome: 'failed', detail: `not enough ${asset} (decrypted locally)` };
}
