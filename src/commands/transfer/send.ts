// `svc transfer send <to> <amount>`: validate locally, confirm for live keys, POST with an
// idempotency key, offer a standard transfer when the recipient is not confidential-ready,
// optionally wait for settlement.
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { HeldTransactionSchema, TransferSchema, type HeldTransaction, type Transfer } from '../../api/schemas.js';
import { ApiError, CliError, NetworkError, SilentExit, UsageError } from '../../errors.js';
import { insufficientBalanceHint, isLoopbackUrl, policyDeniedHint } from '../../api/hints.js';
import { DEFAULT_ASSET } from '../../domain/assets.js';
import { sanitize } from '../../io/sanitize.js';
import { addressDisplay, type ShowAddress } from '../../io/addresses.js';
import { palette, type Palette } from '../../io/colors.js';
import { timeColumn } from '../../io/columns.js';
import { outputMode, printRecord, type OutputMode } from '../../io/render.js';
import { transferFields } from './columns.js';
import { buildTransferRequest, type RequestFlags, type TransferRequest } from './request.js';
import { failedTransferError, parseWaitDuration, waitForTransfer } from './wait.js';

export interface SendOptions extends RequestFlags {
  wait?: boolean;
  timeoutWait?: string;
  /** Validate (and, for an agent's key, evaluate its policy locally); send nothing. */
  dryRun?: boolean;
}

const CreateResponseSchema = z.union([TransferSchema, HeldTransactionSchema]);

export async function sendTransfer(ctx: Needs<'account' | 'auth' | 'client' | 'clock' | 'confirm' | 'env' | 'globals' | 'interrupt' | 'io' | 'json' | 'prompter' | 'reader' | 'serviceClock'>, to: string, amount: string, opts: SendOptions): Promise<void> {
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

  const mode = outputMode(ctx.io, ctx.json);
  const auth = await ctx.auth();
  // People see 0x addresses in their EIP-55 form: the table, and a live key's prompts (which may
  // come with TSV or JSON output); TSV and JSON keep the text as sent.
  const show = await addressDisplay(auth.environment === 'live' ? 'table' : mode);
  await ctx.confirm.live(`Send ${req.amount} ${req.asset} to ${sanitize(show(req.to))} from a LIVE account?`, `Sending ${req.asset} to ${sanitize(show(req.to))} from a LIVE account`);
  const client = await ctx.client();
  const p = await palette(ctx.io);

  let result: Posted;
  try {
    result = await post(ctx, client, req, opts.idempotencyKey ?? randomUUID());
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'recipient_not_confidential_ready' || !req.confidential) throw err;
    const hint = `the recipient's wallet cannot receive confidential tokens; to send a standard transfer instead (the amount becomes public on chain), run the command again with --no-confidential`;
    if (!ctx.io.canPrompt) throw err.with({ hint });
    ctx.io.err(`${p.yellow('!')} ${sanitize(show(req.to))} cannot receive confidential transfers.\n`);
    const ok = await ctx.prompter.confirm('Send it as a standard transfer instead? Its amount will be PUBLIC on chain');
    if (!ok) throw err.with({ hint: 'nothing was sent; add --no-confidential to send a standard transfer' });
    // A new body needs a new key: reusing the first one would be refused as a reused key.
    result = await post(ctx, client, { ...req, confidential: false }, randomUUID());
  }

  if (isHeld(result.data)) {
    printHeld(ctx, mode, p, auth.environment, { ...result.data, idempotency_key: result.key });
    throw new SilentExit('held', 'held_for_approval'); // exit 8: submitted, not yet sent
  }
  let transfer = result.data;
  if (waitMs !== undefined && transfer.status !== 'confirmed' && transfer.status !== 'failed') {
    // Show the id before waiting, so an interrupted wait still leaves it on screen.
    if (!ctx.json) ctx.io.err(`submitted transfer ${sanitize(transfer.transfer_id)} (${sanitize(transfer.status)})\n`);
    transfer = await waitForTransfer(ctx, client, transfer.transfer_id, waitMs, { submitted: true });
  }
  if (transfer.status === 'failed') {
    // stdout carries results only: a failed transfer is an error report (its id is in it).
    if (mode === 'table') printTransfer(ctx, mode, p, auth.environment, transfer, show);
    throw failedTransferError(transfer);
  }
  printTransfer(ctx, mode, p, auth.environment, { ...transfer, idempotency_key: result.key }, show);
  if (mode === 'table' && transfer.status === 'pending') {
    ctx.io.err(`${p.dim(`it settles after the next block; follow it with \`svc transfer get ${sanitize(transfer.transfer_id)} --wait\``)}\n`);
  }
}

interface Posted {
  status: number;
  data: Transfer | HeldTransaction;
  /** The Idempotency-Key the transfer was created with (part of --json output). */
  key: string;
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
      hint: `the transfer may or may not have been made; retry safely (it cannot pay twice) with the same amount: \`${retryCommand(ctx, body, key)}\``,
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

/** The command line that repeats this request with its key; the amount and memo stay placeholders (never printed). */
function retryCommand(ctx: Needs<'globals'>, body: TransferRequest, key: string): string {
  const words = ['svc'];
  if (ctx.globals.profile) words.push('--profile', ctx.globals.profile);
  words.push('transfer', 'send', body.to, '<amount>');
  if (body.asset !== DEFAULT_ASSET) words.push('--asset', body.asset);
  if (body.memo !== undefined) words.push('--memo', '<memo>');
  if (!body.confidential) words.push('--no-confidential');
  words.push('--idempotency-key', key);
  return words.join(' ');
}

function isHeld(data: Transfer | HeldTransaction): data is HeldTransaction {
  return typeof (data as HeldTransaction).transaction_id === 'string' && typeof (data as Transfer).transfer_id !== 'string';
}

function printTransfer(ctx: Needs<'io' | 'serviceClock'>, mode: OutputMode, p: Palette, env: 'live' | 'test', t: Transfer, show: ShowAddress): void {
  if (mode === 'table') ctx.io.out(`${p.badge(env)} ${p.bold(`transfer ${sanitize(t.transfer_id)}`)}\n`);
  printRecord(ctx.io, mode, t, transferFields(p, () => ctx.serviceClock.now(), show));
}

function printHeld(ctx: Needs<'io' | 'json' | 'serviceClock'>, mode: OutputMode, p: Palette, env: 'live' | 'test', h: HeldTransaction): void {
  if (mode === 'table') ctx.io.out(`${p.badge(env)} ${p.bold(p.yellow('held for approval'))}\n`);
  printRecord(ctx.io, mode, h, [
    { key: 'transaction_id', header: 'Transaction ID' },
    { key: 'status', header: 'Status' },
    timeColumn('expires_at', 'Expires', () => ctx.serviceClock.now()),
  ]);
  if (!ctx.json) {
    ctx.io.err(
      `not sent yet: this transfer is above the agent's approval threshold and waits for a human` +
        `${h.expires_at ? ` until ${sanitize(h.expires_at)}` : ''}; the account owner can run \`svc pending approve ${sanitize(h.transaction_id)}\`\n`,
    );
  }
}
