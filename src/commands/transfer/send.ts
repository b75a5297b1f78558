// `svc transfer send <to> <amount>`: validate locally, confirm for live keys, POST with an
// idempotency key, offer a standard transfer when the recipient is not confidential-ready,
// optionally wait for settlement. Every key is journaled (send-journal.ts): a rerun under a key
// whose transfer the service accepted shows that transfer and sends nothing, however long after
// (the service forgets a key after 24 hours); a failure after the service accepted the transfer
// names it, with its key (accepted.ts). With an agent's key a held transfer ends at once (exit 8),
// or with --wait is followed through the human's decision to settlement (send-held.ts).
import { createHash, randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { HeldTransactionSchema, TransferSchema, type HeldTransaction, type Transfer } from '../../api/schemas.js';
import { ApiError, CliError, NetworkError, SilentExit, UsageError } from '../../errors.js';
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
import { buildTransferRequest, type RequestFlags, type TransferRequest } from './request.js';
import { openSendJournal, priorUse, type Earlier, type SendEntry, type SendJournal } from './send-journal.js';
import { failedTransferError, FINAL_STATUSES, parseWaitDuration, waitForTransfer, type WaitOptions } from './wait.js';
import { followHeld, type Settle, type WaitPlan } from './send-held.js';

export interface SendOptions extends RequestFlags {
  wait?: boolean;
  timeoutWait?: string;
  /** Validate (and, for an agent's key, evaluate its policy locally); send nothing. */
  dryRun?: boolean;
}

const CreateResponseSchema = z.union([TransferSchema, HeldTransactionSchema]);

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

  // A key this account has had accepted is never sent again: the earlier transfer is the answer.
  const key = opts.idempotencyKey ?? randomUUID();
  const journal = openSendJournal(ctx.env, { baseUrl: client.baseUrl, accountId: (await ctx.account()).account_id }, () => ctx.clock.now(), key);
  const fingerprint = journal.fingerprint(req);
  const earlier = priorUse(journal.find(key), fingerprint, ctx.clock.now());
  if (earlier) return showEarlier(out, client, earlier, wait);

  const send = (body: TransferRequest, sentKey: string) => postJournaled(ctx, client, journal, { key, request: fingerprint }, body, sentKey);
  let result: Posted;
  try {
    result = await send(req, key);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'recipient_not_confidential_ready' || !req.confidential) throw err;
    // The service's message speaks its API (`"confidential": false`); the hint, this tool's flag.
    if (!ctx.io.canPrompt) throw err.with({ hint: standardTransferHint(req.to) });
    ctx.io.err(`${out.p.yellow('!')} ${sanitize(show(req.to))} cannot receive confidential transfers.\n`);
    const ok = await ctx.prompter.confirm('Send it as a standard transfer instead? Its amount will be PUBLIC on chain');
    if (!ok) throw err.with({ hint: 'nothing was sent; add --no-confidential to send a standard transfer' });
    // A new body needs a new key: reusing the first one would be refused as a reused key. A key
    // of the user's gives one derived from it, so a rerun of this command is a retry too.
    result = await send({ ...req, confidential: false }, opts.idempotencyKey !== undefined ? standardKey(key) : randomUUID());
  }

  if (isHeld(result.data)) {
    // With --wait: follow it through the human's decision to the money moving (exit 0 only then).
    if (wait) return followHeld(ctx, client, { transactionId: result.data.transaction_id, expiresAt: result.data.expires_at, key: result.key }, wait, settleApproved(out, client, result.key, result.data.transaction_id));
    printHeld(out, { ...result.data, idempotency_key: result.key });
    throw new SilentExit('held', 'held_for_approval'); // exit 8: submitted, not yet sent
  }
  const transfer = result.data;
  try {
    await finish(out, client, transfer, result.key, waitMs, { submitted: true });
  } catch (err) {
    throw acceptedError(err, { key: result.key, transferId: transfer.transfer_id });
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
    transfer = await waitForTransfer(ctx, client, transfer.transfer_id, waitMs, waitOpts);
  }
  if (transfer.status === 'failed') {
    // stdout carries results only: a failed transfer is an error report (its id is in it).
    if (mode === 'table') printTransfer(out, transfer);
    throw failedTransferError(transfer, { send: true });
  }
  printTransfer(out, { ...transfer, ...extra, idempotency_key: key });
  if (mode === 'table' && transfer.status === 'pending') {
    const follow = withTarget(`\`svc transfer get ${sanitize(transfer.transfer_id)} --wait\``, ctx.globals);
    ctx.io.err(`${p.dim(`it settles after the next block; follow it with ${sanitize(follow)}`)}\n`);
  }
}

/** After a human approved a held transfer: the transfer it made, followed like one this command sent. */
function settleApproved(out: Out, client: ApiClient, key: string, transactionId: string): Settle {
  return (transfer, waitMs) => finish(out, client, transfer, key, waitMs, { submitted: true }, { transaction_id: transactionId });
}

/**
 * A rerun under a key the service accepted before: the earlier transfer, read back (the same
 * shape as a send's, and its exit code), or the held transaction as it was answered (exit 8).
 * One line on stderr says so.
 */
async function showEarlier(out: Out, client: ApiClient, e: Earlier, wait: WaitPlan | undefined): Promise<void> {
  const { ctx } = out;
  const waitMs = wait?.ms;
  const sentKey = e.sent_key ?? e.key;
  const what = e.status === 'held'
    ? `held transaction ${e.transaction_id}${e.expires_at ? ` (held for approval until ${e.expires_at})` : ''}`
    : e.transfer_id;
  const note = `${sanitize(`already sent under idempotency key ${e.key} on ${e.at}: ${what}; not sent again`)}\n`;
  // With --json, stderr carries only the error object when the command fails: the note comes last.
  if (!ctx.json) ctx.io.err(note);
  if (e.status === 'held' && wait) {
    // Followed as a fresh held send is: the decision (perhaps made already), then the money.
    if (!ctx.json) ctx.io.err(note);
    const id = e.transaction_id ?? '';
    await followHeld(ctx, client, { transactionId: id, ...(e.expires_at ? { expiresAt: e.expires_at } : {}), key: sentKey, earlierAt: e.at }, wait, settleApproved(out, client, sentKey, id));
    if (ctx.json) ctx.io.err(note);
    return;
  }
  if (e.status === 'held') {
    printHeld(out, { transaction_id: e.transaction_id ?? '', status: 'pending_approval', expires_at: e.expires_at ?? '', idempotency_key: sentKey }, { earlier: true });
    if (ctx.json) ctx.io.err(note);
    throw new SilentExit('held', 'held_for_approval');
  }
  const id = e.transfer_id ?? '';
  try {
    const { data } = await client.get(transferPath(id), { schema: TransferSchema });
    await finish(out, client, data, sentKey, waitMs, {});
  } catch (err) {
    throw acceptedError(err, { key: sentKey, transferId: id, earlierAt: e.at });
  }
  if (ctx.json) ctx.io.err(note);
}

export interface Posted {
  status: number;
  data: Transfer | HeldTransaction;
  /** The Idempotency-Key the transfer was created with (part of --json output). */
  key: string;
}

/**
 * POSTs the request with its journal entries around it: `tried` before it leaves (a journal that
 * cannot be written stops the send), then `sent` / `held` the moment the service accepts it, or
 * `not_sent` when nothing was made. A lost answer leaves `tried`: the outcome is unknown.
 */
export async function postJournaled(ctx: Needs<'account' | 'auth' | 'globals' | 'io'>, client: ApiClient, journal: SendJournal, cmd: { key: string; request: string }, body: TransferRequest, sentKey: string): Promise<Posted> {
  const base = { ...cmd, ...(sentKey !== cmd.key ? { sent_key: sentKey } : {}) };
  // Tried again after a lost answer: the service's memory of the key runs from the first try.
  const prior = journal.find(cmd.key);
  const firstTried = prior?.status === 'tried' && prior.sent_key === base.sent_key ? (prior.first_tried_at ?? prior.at) : undefined;
  journal.record({ ...base, status: 'tried', ...(firstTried ? { first_tried_at: firstTried } : {}) });
  let posted: Posted;
  try {
    posted = await post(ctx, client, body, sentKey);
  } catch (err) {
    if (nothingMade(err)) recordAfter(ctx, journal, { ...base, status: 'not_sent' });
    throw err;
  }
  const d = posted.data;
  recordAfter(ctx, journal, isHeld(d)
    ? { ...base, status: 'held', transaction_id: d.transaction_id, ...(d.expires_at ? { expires_at: d.expires_at } : {}) }
    : { ...base, status: 'sent', transfer_id: d.transfer_id });
  return posted;
}

/** Records what the service answered; a journal that fails now must not hide the answer. */
function recordAfter(ctx: Needs<'io'>, journal: SendJournal, entry: Omit<SendEntry, 'at'>): void {
  try {
    journal.record(entry);
  } catch (err) {
    ctx.io.err(`warning: could not record idempotency key ${sanitize(entry.sent_key ?? entry.key)} in ${sanitize(journal.path)} (${sanitize((err as Error).message)}): a rerun after the service forgets it (24 hours) would send it again\n`);
  }
}

/** A definite refusal (4xx), or no request left this machine: nothing was made under the key. */
export function nothingMade(err: unknown): boolean {
  if (err instanceof NetworkError) return err.nothingSent;
  return err instanceof ApiError && err.status >= 400 && err.status < 500;
}

/**
 * POSTs the transfer. When the outcome is unknown (no answer, a timeout, a 5xx after retries,
 * an unreadable answer) the error carries the key and the command that retries safely.
 */
async function post(ctx: Needs<'account' | 'auth' | 'globals'>, client: ApiClient, body: TransferRequest, key: string): Promise<Posted> {
  try {
    const res = await client.post('/v1/transfers', { body, idempotencyKey: key, schema: CreateResponseSchema });
    return { status: res.status, data: res.data, key };
  } catch (err) {
    if (err instanceof ApiError) err = await withRefusalHint(ctx, err, body);
    if (!(err instanceof CliError) || !outcomeUnknown(err)) throw err;
    throw err.with({
      hint: `the transfer may or may not have been made; retry safely (it cannot pay twice) with the same amount: \`${retryCommand(body, key)}\``,
      details: { idempotency_key: key },
    });
  }
}

function outcomeUnknown(err: CliError): boolean {
  // Refused at connect on every try: no request left this machine, so nothing was made.
  if (err instanceof NetworkError && err.nothingSent) return false;
  if (err.kind === 'network' || err.code === 'invalid_response') return true;
  return err instanceof ApiError && err.status >= 500;
}

/**
 * A refused transfer's hint names the next command: what the account holds (and, on the
 * sandbox, how to add test funds), or the policy check that shows which rule denies it.
 */
async function withRefusalHint(ctx: Needs<'account' | 'auth'>, err: ApiError, body: TransferRequest): Promise<ApiError> {
  if (err.code !== 'insufficient_balance' && err.code !== 'policy_violation') return err;
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

export function isHeld(data: Transfer | HeldTransaction): data is HeldTransaction {
  return typeof (data as HeldTransaction).transaction_id === 'string' && typeof (data as Transfer).transfer_id !== 'string';
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
        `${h.expires_at ? ` until ${sanitize(h.expires_at)}` : ''}; the account owner can run \`svc pending approve ${sanitize(h.transaction_id)}\`` +
        ` (it was accepted under idempotency key ${sanitize(h.idempotency_key)})\n`,
    );
  }
}
