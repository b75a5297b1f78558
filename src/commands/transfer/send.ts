// `svc transfer send <to> <amount>`: validate locally, confirm for live keys, POST with an
// idempotency key, offer a standard transfer when the recipient is not confidential-ready,
// optionally wait for settlement.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { App } from '../../app.js';
import type { ApiClient } from '../../api/client.js';
import { HeldTransactionSchema, TransferSchema, type HeldTransaction, type Transfer } from '../../api/schemas.js';
import { ApiError, ExitCode, UsageError } from '../../errors.js';
import { formatUnits, parseAmount } from '../../domain/amount.js';
import { DEFAULT_ASSET, KNOWN_ASSETS } from '../../domain/assets.js';
import { parseRecipient, RECIPIENT_RULE } from '../../domain/recipient.js';
import { palette, type Palette } from '../../io/colors.js';
import { outputMode, printRecord, type OutputMode } from '../../io/render.js';
import { failedTransferError, parseWaitDuration, transferFields, waitForTransfer } from './shared.js';

export interface SendOptions {
  asset?: string;
  memo?: string;
  confidential?: boolean; // false with --no-confidential
  idempotencyKey?: string;
  wait?: boolean;
  timeoutWait?: string;
}

export interface TransferRequest {
  to: string;
  amount: string;
  asset: string;
  confidential: boolean;
  memo?: string;
}

const ASSET_RE = /^[A-Za-z0-9]{2,16}$/;
// Printable ASCII without spaces: it travels in an HTTP header.
const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;
const MEMO_MAX = 1024;

const CreateResponseSchema = z.union([TransferSchema, HeldTransactionSchema]);

/** Validates everything locally; throws a UsageError (exit 2) naming the field and rule. */
export function buildTransferRequest(to: string, amount: string, opts: SendOptions): TransferRequest {
  const recipient = parseRecipient(to);
  if (!recipient) throw new UsageError(`recipient "${to}" ${RECIPIENT_RULE}`);
  const assetText = opts.asset ?? DEFAULT_ASSET;
  if (!ASSET_RE.test(assetText)) {
    throw new UsageError(`--asset "${assetText}" must be an asset code of 2 to 16 letters or digits, such as ${KNOWN_ASSETS.join(' or ')}`);
  }
  const asset = assetText.toUpperCase();
  // The amount itself is never echoed in an error: it may be a real, confidential amount.
  const parsed = parseAmount(amount, asset);
  if (!parsed.ok) throw new UsageError(`amount ${parsed.rule}`);
  if (opts.memo !== undefined) {
    if (opts.memo.length === 0) throw new UsageError('--memo must not be empty (leave it out instead)');
    if (opts.memo.length > MEMO_MAX) throw new UsageError(`--memo must be at most ${MEMO_MAX} characters`);
  }
  if (opts.idempotencyKey !== undefined && !IDEMPOTENCY_KEY_RE.test(opts.idempotencyKey)) {
    throw new UsageError('--idempotency-key must be 1 to 255 printable characters without spaces');
  }
  const req: TransferRequest = {
    // Handles are case-insensitive and sent lower-case; addresses go as given (checksum case kept).
    to: recipient.kind === 'handle' ? recipient.handle : to,
    // Canonical decimal string (no float anywhere): "007.50" is sent as "7.5".
    amount: formatUnits(parsed.units, asset, { minFraction: 0 }),
    asset,
    confidential: opts.confidential !== false,
  };
  if (opts.memo !== undefined) req.memo = opts.memo;
  return req;
}

export async function sendTransfer(app: App, to: string, amount: string, opts: SendOptions): Promise<void> {
  const req = buildTransferRequest(to, amount, opts);
  const waitMs = opts.wait ? parseWaitDuration(opts.timeoutWait) : undefined;
  if (!opts.wait && opts.timeoutWait !== undefined) throw new UsageError('--timeout-wait needs --wait');

  await app.confirm(`Send ${req.amount} ${req.asset} to ${req.to} from LIVE account?`, { onlyLive: true });
  const client = await app.client();
  const auth = await app.auth();
  const p = await palette(app.io);
  const mode = outputMode(app.io, app.json);

  let result: { status: number; data: Transfer | HeldTransaction };
  try {
    result = await post(app, client, req, opts.idempotencyKey);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'recipient_not_confidential_ready' || !req.confidential) throw err;
    const hint = `the recipient's wallet cannot receive confidential tokens; to send a standard transfer instead (the amount becomes public on chain), run the command again with --no-confidential`;
    if (!app.io.canPrompt) throw err.withHint(hint);
    const { confirm } = await import('@inquirer/prompts');
    app.io.err(`${p.yellow('!')} ${req.to} cannot receive confidential transfers.\n`);
    const ok = await confirm(
      {
        message: 'Send it as a standard transfer instead? Its amount will be PUBLIC on chain',
        default: false,
      },
      { input: app.io.stdin, output: app.io.stderr },
    );
    if (!ok) throw err.withHint('nothing was sent; add --no-confidential to send a standard transfer');
    // A new body needs a new key: reusing the first one would be refused as a reused key.
    result = await post(app, client, { ...req, confidential: false }, undefined);
  }

  if (isHeld(result)) {
    printHeld(app, mode, p, auth.environment, result.data);
    return;
  }
  let transfer = result.data as Transfer;
  if (waitMs !== undefined && transfer.status !== 'confirmed' && transfer.status !== 'failed') {
    // Show the id before waiting, so an interrupted wait still leaves it on screen.
    if (!app.json) app.io.err(`submitted transfer ${transfer.transfer_id} (${transfer.status})\n`);
    transfer = await waitForTransfer(app, client, transfer.transfer_id, waitMs);
  }
  printTransfer(app, mode, p, auth.environment, transfer);
  if (transfer.status === 'failed') throw failedTransferError(transfer);
  if (mode === 'table' && transfer.status === 'pending') {
    app.io.err(`${p.dim(`it settles after the next block; follow it with \`svc transfer get ${transfer.transfer_id} --wait\``)}\n`);
  }
}

async function post(app: App, client: ApiClient, body: TransferRequest, givenKey: string | undefined) {
  const key = givenKey ?? randomUUID();
  if (!givenKey && !app.json) {
    app.io.err(`idempotency key ${key} (to retry this exact transfer safely, pass --idempotency-key ${key})\n`);
  }
  return client.post('/v1/transfers', { body, idempotencyKey: key, schema: CreateResponseSchema });
}

function isHeld(r: { status: number; data: Transfer | HeldTransaction }): r is { status: number; data: HeldTransaction } {
  return typeof (r.data as HeldTransaction).transaction_id === 'string' && typeof (r.data as Transfer).transfer_id !== 'string';
}

function printTransfer(app: App, mode: OutputMode, p: Palette, env: 'live' | 'test', t: Transfer): void {
  if (mode === 'table') app.io.out(`${p.badge(env)} ${p.bold(`transfer ${t.transfer_id}`)}\n`);
  printRecord(app.io, mode, t, transferFields(p));
}

function printHeld(app: App, mode: OutputMode, p: Palette, env: 'live' | 'test', h: HeldTransaction): void {
  if (mode === 'table') app.io.out(`${p.badge(env)} ${p.bold(p.yellow('held for approval'))}\n`);
  printRecord(app.io, mode, h, [
    { key: 'transaction_id', header: 'Transaction ID' },
    { key: 'status', header: 'Status' },
    { key: 'expires_at', header: 'Expires' },
  ]);
  if (!app.json) {
    app.io.err(
      `not sent yet: this transfer is above the agent's approval threshold and waits for a human` +
        `${h.expires_at ? ` until ${h.expires_at}` : ''}; the account owner can run \`svc pending approve ${h.transaction_id}\`\n`,
    );
  }
  app.exitCode = ExitCode.held;
}
