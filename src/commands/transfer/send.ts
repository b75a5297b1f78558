// `svc transfer send <to> <amount>`: validate locally, confirm for live keys, then pay once under
// an idempotency key through the payment engine (core/payment.ts: the ledger decides whether to
// send, and records what the service did), offer a standard transfer when the recipient is not
// confidential-ready, optionally wait for settlement. A rerun under a key the service accepted
// shows what it made and sends nothing, however long after, following a held transfer to what
// it became; a failure after the service accepted the transfer names it, with its key
// (accepted.ts). With an agent's key a held transfer ends at once (exit 8), or with --wait is
// followed through the human's decision to settlement (send-held.ts). This file renders.
import { createHash, randomUUID } from 'node:crypto';
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { TransferSchema, type HeldResource, type HeldTransaction, type Transfer } from '../../api/schemas.js';
import { ApiError, CliError, SilentExit, UsageError } from '../../errors.js';
import { insufficientBalanceHint, isLoopbackUrl, policyDeniedHint, standardTransferHint } from '../../api/hints.js';
import { shellWord, withTarget } from '../../runtime/hint-command.js';
import { DEFAULT_ASSET } from '../../domain/assets.js';
import { sanitize } from '../../io/sanitize.js';
import { addressDisplay, type ShowAddress } from '../../io/addresses.js';
import { palette, type Palette } from '../../io/colors.js';
import { timeColumn } from '../../io/columns.js';
import { outputMode, printRecord, type OutputMode } from '../../io/render.js';
import { acceptedError } from './accepted.js';
import { transferFields } from './columns.js';
import { transferPath } from './id.js';
import { buildTransferRequest, type RequestFlags, type TransferRequest } from '../../core/request.js';
import { isHeld, Payment, type Earlier, type Posted, type Prior } from '../../core/payment.js';
import { failedTransferError, FINAL_STATUSES, parseWaitDuration, waitForTransfer, type WaitOptions } from './wait.js';
import { followHeld, quorumOfHeld, type HeldToFollow, type Settle, type WaitPlan } from './send-held.js';
import { expiredError, rejectedError } from '../pending/follow.js';
import { decidedByText } from '../../core/held.js';
import { svc } from '../../domain/shell-command.js';

export interface SendOptions extends RequestFlags {
  wait?: boolean;
  timeoutWait?: string;
  /** Validate (and, for an agent's key, evaluate its policy locally); send nothing. */
  dryRun?: boolean;
}

type SendCtx = Needs<'account' | 'auth' | 'client' | 'clock' | 'confirm' | 'env' | 'globals' | 'interrupt' | 'io' | 'json' | 'network' | 'prompter' | 'reader' | 'serviceClock'>;

/** How results are shown: what every printer of this command needs. */
interface Out {
  ctx: SendCtx;
  mode: OutputMode;
  p: Palette;
  env: 'live' | 'test';
  show: ShowAddress;
  /**
   * The receipt: the amount and memo as typed. The service never returns them in plaintext, so
   * the record a person reads on a terminal restates them; TSV and --json stay the service's
   * fields (a pipe may be a log file; a script knows what it typed: docs/json.md, docs/ux.md).
   */
  typed: { amount: string; memo?: string };
}

export async function sendTransfer(ctx: SendCtx, to: string, amount: string, opts: SendOptions): Promise<void> {
  const req = buildTransferRequest(to, amount, opts);
  if (opts.dryRun) {
    if (opts.wait || opts.timeoutWait !== undefined) {
      throw new UsageError(`${opts.wait ? '--wait' : '--timeout-wait'} cannot be combined with --dry-run: a dry run sends nothing to wait for`, undefined, 'usage');
    }
    const { dryRunSend } = await import('./send-dry-run.js');
    return dryRunSend(ctx, req, opts);
  }
  const waitMs = opts.wait ? parseWaitDuration(opts.timeoutWait) : undefined;
  if (!opts.wait && opts.timeoutWait !== undefined) throw new UsageError('--timeout-wait needs --wait');
  // A held transfer waits for a human first: without --timeout-wait until the decision or the
  // end of its window; with it, the whole wait (decision and settlement) is bounded by it.
  const wait: WaitPlan | undefined = waitMs === undefined ? undefined : { ms: waitMs, explicit: opts.timeoutWait !== undefined };

  const mode = outputMode(ctx.io, ctx.json);
  const auth = await ctx.auth();
  // People see 0x addresses in their EIP-55 form: the table, and a live key's prompts (which may
  // come with TSV or JSON output); TSV and JSON keep the text as sent.
  const show = await addressDisplay(auth.environment === 'live' ? 'table' : mode);
  // Asked before any request: a live key without a yes contacts nothing.
  await ctx.confirm.live(`Send ${req.amount} ${req.asset} to ${sanitize(show(req.to))} from a LIVE account?`, `Sending ${req.asset} to ${sanitize(show(req.to))} from a LIVE account`);
  const client = await ctx.client();
  const out: Out = { ctx, mode, p: await palette(ctx.io), env: auth.environment, show, typed: { amount: req.amount, ...(req.memo !== undefined ? { memo: req.memo } : {}) } };

  // A key this account has had accepted is never sent again: what it made is the answer.
  const key = opts.idempotencyKey ?? randomUUID();
  const payment = await Payment.open(ctx, req, key);
  try {
    const prior = await payment.prior();
    if (prior.kind === 'earlier') return await showEarlier(out, client, payment, prior.earlier, wait);
    const result = await sendOnce(out, payment, req, prior, opts.idempotencyKey !== undefined);
    if (isHeld(result.data)) {
      // With --wait: follow it through the human's decision to the money moving (exit 0 only then).
      if (wait) return await follow(out, client, payment, { transactionId: result.data.transaction_id, expiresAt: result.data.expires_at, key: result.key, ...quorumOfHeld(result.data) }, wait, true);
      printHeld(out, { ...result.data, idempotency_key: result.key });
      throw new SilentExit('held', 'held_for_approval'); // exit 8: submitted, not yet sent
    }
    const transfer = result.data;
    try {
      await finish(out, client, transfer, result.key, waitMs, { submitted: true });
    } catch (err) {
      throw acceptedError(err, { key: result.key, transferId: transfer.transfer_id });
    }
  } finally {
    for (const w of payment.warnings) ctx.io.err(`warning: ${sanitize(w)}\n`);
    payment.close();
  }
}

/**
 * Sends the request (or, when an earlier try's outcome is unknown, the same request again under
 * its key); a recipient that cannot take confidential transfers is offered a standard one.
 */
async function sendOnce(out: Out, payment: Payment, req: TransferRequest, prior: Exclude<Prior, { kind: 'earlier' }>, ownKey: boolean): Promise<Posted> {
  const { ctx } = out;
  const key = payment.key;
  if (prior.kind === 'again' && prior.sentKey !== key) {
    // What was tried and not answered was the standard transfer accepted in that run: the same again.
    return payment.send({ ...req, confidential: false }, prior.sentKey, { reachedBefore: true });
  }
  try {
    return await payment.send(req, key, { reachedBefore: prior.kind === 'again' });
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'recipient_not_confidential_ready' || !req.confidential) throw await withRefusalHint(ctx, err, req, key);
    // The service's message speaks its API (`"confidential": false`); the hint, this tool's flag.
    if (!ctx.io.canPrompt) throw err.with({ hint: standardTransferHint(req.to) });
    ctx.io.err(`${out.p.yellow('!')} ${sanitize(out.show(req.to))} cannot receive confidential transfers.\n`);
    const ok = await ctx.prompter.confirm('Send it as a standard transfer instead? Its amount will be PUBLIC on chain');
    if (!ok) throw err.with({ hint: 'nothing was sent; add --no-confidential to send a standard transfer' });
    // A new body needs a new key: reusing the first one would be refused as a reused key. A key
    // of the user's gives one derived from it, so a rerun of this command is a retry too.
    const body = { ...req, confidential: false };
    const sentKey = ownKey ? standardKey(key) : randomUUID();
    try {
      return await payment.send(body, sentKey);
    } catch (err2) {
      throw await withRefusalHint(ctx, err2, body, sentKey);
    }
  }
}

/** The key of the standard transfer offered after a 422, from the user's key. */
function standardKey(key: string): string {
  const derived = `${key}/standard`;
  return derived.length <= 255 ? derived : `standard/${createHash('sha256').update(key).digest('hex')}`;
}

/**
 * After the service made the transfer (or, for a rerun, after reading it back): waits for it
 * with --wait, reports it failed (exit 1), or prints it with the key it was made under.
 */
async function finish(out: Out, client: ApiClient, made: Transfer, key: string, waitMs: number | undefined, waitOpts: WaitOptions, extra: Record<string, string> = {}): Promise<void> {
  const { ctx, mode, p } = out;
  let transfer = made;
  if (waitMs !== undefined && !FINAL_STATUSES.includes(transfer.status)) {
    // Show the id before waiting, so an interrupted wait still leaves it on screen.
    if (!ctx.json && waitOpts.submitted) ctx.io.err(`submitted transfer ${sanitize(transfer.transfer_id)} (${sanitize(transfer.status)}) under idempotency key ${sanitize(key)}\n`);
    // Just answered or read: the first poll waits for the next block instead of reading it again.
    transfer = await waitForTransfer(ctx, client, transfer.transfer_id, waitMs, { ...waitOpts, known: transfer });
  }
  if (transfer.status === 'failed') {
    // stdout carries results only: a failed transfer is an error report (its id is in it).
    if (mode === 'table') printTransfer(out, transfer);
    throw failedTransferError(transfer, { send: true });
  }
  printTransfer(out, { ...transfer, ...extra, idempotency_key: key });
  if (mode === 'table' && transfer.status === 'pending') {
    const follow = withTarget(svc`transfer get ${transfer.transfer_id} --wait`, ctx.globals);
    ctx.io.err(`${p.dim(`it settles after the next block; follow it with ${sanitize(follow)}`)}\n`);
  }
}

/**
 * Follows a held transfer through the human's decision (send-held.ts) and, once approved, the
 * transfer it made like one this command sent (`submitted` only when this run sent it). What it
 * became is written down in the ledger, so a rerun knows.
 */
async function follow(out: Out, client: ApiClient, payment: Payment, h: HeldToFollow, wait: WaitPlan, submitted: boolean): Promise<void> {
  const settle: Settle = (transfer, waitMs) => {
    payment.noteApproved(h.transactionId, transfer.transfer_id);
    return finish(out, client, transfer, h.key, waitMs, { submitted }, { transaction_id: h.transactionId });
  };
  try {
    await followHeld(out.ctx, client, h, wait, settle);
  } catch (err) {
    const status = err instanceof CliError ? err.details.status : undefined;
    if (status === 'rejected' || status === 'expired') payment.noteDecided(h.transactionId, status);
    throw err;
  }
}

/**
 * A rerun under a key the service accepted before: what it made, read back (the same shape as a
 * send's, and its exit code). A held transaction is followed to what it became: the transfer
 * once approved (exit 0), rejected (6), expired (5), still waiting (8, or followed with --wait).
 * One line on stderr says it was not sent again.
 */
async function showEarlier(out: Out, client: ApiClient, payment: Payment, e: Earlier, wait: WaitPlan | undefined): Promise<void> {
  const { ctx } = out;
  const what = e.transactionId !== undefined
    ? `held transaction ${e.transactionId}${e.expiresAt ? ` (held for approval until ${e.expiresAt})` : ''}`
    : e.transferId;
  const note = `${sanitize(`already sent under idempotency key ${e.key} on ${e.at}: ${what}; not sent again`)}\n`;
  // With --json, stderr carries only the error object when the command fails: the note comes last.
  if (!ctx.json) ctx.io.err(note);
  try {
    await showMade(out, client, payment, e, wait);
  } catch (err) {
    // A result printed with only its exit code left (held: 8) keeps the note; an error object is alone.
    if (ctx.json && err instanceof SilentExit) ctx.io.err(note);
    throw err;
  }
  if (ctx.json) ctx.io.err(note);
}

async function showMade(out: Out, client: ApiClient, payment: Payment, e: Earlier, wait: WaitPlan | undefined): Promise<void> {
  const accepted = { key: e.sentKey, earlierAt: e.at };
  if (e.transactionId !== undefined && e.transferId === undefined) {
    const id = e.transactionId;
    const held = await learnHeld(out, client, payment, e);
    if (held?.status === 'rejected') throw acceptedError(rejectedError(held), { ...accepted, transactionId: id });
    if (held?.status === 'expired') throw acceptedError(expiredError(held), { ...accepted, transactionId: id });
    if (held?.status === 'approved' && held.transfer_id !== undefined) {
      if (!out.ctx.json) {
        const by = decidedByText(held);
        out.ctx.io.err(`${sanitize(`approved ${id}${by ? ` by ${by}` : ''}: submitted as transfer ${held.transfer_id}`)}\n`);
      }
      return showMade(out, client, payment, { ...e, transferId: held.transfer_id }, wait);
    }
    if (wait) {
      // Followed as a fresh held send is: the decision, then the money (not submitted by this run).
      return follow(out, client, payment, { transactionId: id, ...(e.expiresAt ? { expiresAt: e.expiresAt } : {}), key: e.sentKey, earlierAt: e.at, ...(held ? { known: held } : {}) }, wait, false);
    }
    printHeld(out, { transaction_id: id, status: 'pending_approval', expires_at: held?.expires_at ?? e.expiresAt ?? '', idempotency_key: e.sentKey }, { earlier: true });
    throw new SilentExit('held', 'held_for_approval');
  }
  const id = e.transferId ?? '';
  const extra: Record<string, string> = e.transactionId !== undefined ? { transaction_id: e.transactionId } : {};
  try {
    const { data } = await client.get(transferPath(id), { schema: TransferSchema });
    await finish(out, client, data, e.sentKey, wait?.ms, {}, extra);
  } catch (err) {
    throw acceptedError(err, { ...accepted, transferId: id });
  }
}

/**
 * What the held transaction became, from the service (and written down once decided). A service
 * without the held-transaction routes cannot say: the transaction is shown as it was answered.
 */
async function learnHeld(out: Out, client: ApiClient, payment: Payment, e: Earlier): Promise<HeldResource | undefined> {
  const id = e.transactionId ?? '';
  try {
    return await payment.learnHeld(client, id);
  } catch (err) {
    if (!(err instanceof CliError) || err.code !== 'unsupported_by_service') throw acceptedError(err, { key: e.sentKey, transactionId: id, earlierAt: e.at });
    // What an earlier run learnt still holds: a decision is final.
    if (e.held === 'rejected' || e.held === 'expired') return { transaction_id: id, status: e.held, agent: '', to: '', requested_at: e.at, expires_at: e.expiresAt ?? e.at };
    if (!out.ctx.json) out.ctx.io.err(`note: ${sanitize(err.message)}; shown as the service answered it then\n`);
    return undefined;
  }
}

/**
 * A refused transfer's hint names the next command: what the account holds (and, on the
 * sandbox, how to add test funds), or the policy check that shows which rule denies it. A
 * request whose outcome is unknown gets the command that retries it under its key.
 */
async function withRefusalHint(ctx: Needs<'account' | 'auth'>, err: unknown, body: TransferRequest, key: string): Promise<unknown> {
  if (!(err instanceof CliError)) return err;
  if (err.delivery === 'unknown' && err.code !== 'idempotency_outcome_unknown') {
    return err.with({
      hint: `the transfer may or may not have been made; retry safely (it cannot pay twice) with the same amount: \`${retryCommand(body, key)}\``,
      details: { idempotency_key: key },
    });
  }
  if (!(err instanceof ApiError) || (err.code !== 'insufficient_balance' && err.code !== 'policy_violation')) return err;
  const loopback = isLoopbackUrl((await ctx.auth()).baseUrl);
  if (err.code === 'insufficient_balance') {
    return err.with({ hint: insufficientBalanceHint({ loopback, asset: body.asset, ...(loopback ? { handle: await ownHandle(ctx) } : {}) }) });
  }
  return err.with({ hint: policyDeniedHint({ agent: await ownHandle(ctx), to: body.to, asset: body.asset }) });
}

/** The sending account's handle, for a hint: the profile's, else asked once; a hint never fails the command. */
async function ownHandle(ctx: Needs<'account'>): Promise<string | undefined> {
  try {
    return (await ctx.account()).handle;
  } catch {
    return undefined;
  }
}

/**
 * The command line that repeats this request with its key; the amount and memo stay placeholders
 * (never printed). The report adds this run's --profile / --base-url (runtime/hint-command.ts).
 */
function retryCommand(body: TransferRequest, key: string): string {
  const words = ['svc', 'transfer', 'send', shellWord(body.to), '<amount>'];
  if (body.asset !== DEFAULT_ASSET) words.push('--asset', shellWord(body.asset));
  if (body.memo !== undefined) words.push('--memo', '<memo>');
  if (!body.confidential) words.push('--no-confidential');
  words.push('--idempotency-key', shellWord(key));
  return words.join(' ');
}

/** The transfer; on a terminal, a receipt with the amount and memo as typed. */
function printTransfer(out: Out, t: Transfer): void {
  const { ctx, mode, p } = out;
  if (mode === 'table') ctx.io.out(`${p.badge(out.env)} ${p.bold(`transfer ${sanitize(t.transfer_id)}`)}\n`);
  const row = mode === 'table' ? { ...t, amount: out.typed.amount, ...(out.typed.memo !== undefined ? { memo: out.typed.memo } : {}) } : t;
  printRecord(ctx.io, mode, row, transferFields(p, () => ctx.serviceClock.now(), out.show));
}

/** The held transaction (exit 8 follows); a new one says on stderr who may approve it, and its key. */
function printHeld(out: Out, h: HeldTransaction & { idempotency_key: string }, opts: { earlier?: boolean } = {}): void {
  const { ctx, mode, p } = out;
  if (mode === 'table') ctx.io.out(`${p.badge(out.env)} ${p.bold(p.yellow('held for approval'))}\n`);
  printRecord(ctx.io, mode, h, [
    { key: 'transaction_id', header: 'Transaction ID' },
    { key: 'status', header: 'Status' },
    timeColumn('expires_at', 'Expires', () => ctx.serviceClock.now()),
  ]);
  if (!ctx.json && !opts.earlier) {
    ctx.io.err(
      `not sent yet: this transfer is above the agent's approval threshold and waits for a human` +
        `${h.expires_at ? ` until ${sanitize(h.expires_at)}` : ''}; the account owner can run ${sanitize(svc`pending approve ${h.transaction_id}`)}` +
        ` (it was accepted under idempotency key ${sanitize(h.idempotency_key)})\n`,
    );
  }
}
