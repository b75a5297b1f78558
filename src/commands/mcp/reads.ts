// The read tools, each through the module its command uses: transfer get / ls (one page of
// GET /v1/transfers, checked by page-answer.ts, filters checked by planList), the balance (read
// and decrypted locally), the policy dry run (send-dry-run.ts's verdict), and a held transaction
// (pending/held.ts); the wait for its decision is wait.ts.
// Amounts and memos appear only where this profile's own decryption key opens them.
import { BalancesSchema, TransferSchema, type HeldResource, type Transfer } from '../../api/schemas.js';
import { CliError } from '../../errors.js';
import type { Needs } from '../../runtime/factory.js';
import { parseAssetFlag } from '../../runtime/flags.js';
import { checkTransactionId, fetchHeld } from '../../core/held.js';
import { openHeld } from '../pending/queue.js';
import { openerFor, type Opened } from '../transfer/decrypt.js';
import { checkTransferId, transferPath } from '../transfer/id.js';
import { MAX_PAGE, planList } from '../transfer/ls.js';
import { TransferPageAnswer } from '../transfer/page-answer.js';
import { buildTransferRequest } from '../../core/request.js';
import { dryRunVerdict } from '../transfer/send-dry-run.js';
import { argsOf, asFieldError, integer, optionalText, requiredText } from './args.js';
import { ok, type Outcome } from './results.js';

export type ReadCtx = Needs<'account' | 'client' | 'clock' | 'env' | 'interrupt' | 'io' | 'json' | 'network' | 'reader' | 'serviceClock'>;

/** A transfer for the model: the service's fields without ciphertexts, plus what opens here. */
function transferView(t: Transfer, opened: Opened): Record<string, unknown> {
  const { amount_ciphertext: _a, memo_ciphertext: _m, ...rest } = t;
  return { ...rest, ...(opened.amount !== null ? { amount: opened.amount } : {}), ...(opened.memo !== null ? { memo: opened.memo } : {}) };
}

export async function getTransferTool(ctx: ReadCtx, raw: unknown): Promise<Outcome> {
  const args = argsOf(raw, ['transfer_id']);
  const id = checkTransferId(requiredText(args, 'transfer_id'));
  const { data } = await (await ctx.client()).get(transferPath(id), { schema: TransferSchema });
  const open = await openerFor(ctx, [data]);
  return ok(transferView(data, open(data)), `transfer ${data.transfer_id}: ${data.status}, to ${data.to}`, { outcome: 'ok', ids: { transfer: data.transfer_id } });
}

export const LIST_DEFAULT = 20;

export async function listTransfersTool(ctx: ReadCtx, raw: unknown): Promise<Outcome> {
  const args = argsOf(raw, ['status', 'since', 'until', 'limit', 'offset']);
  const limit = integer(args, 'limit', 1, MAX_PAGE, LIST_DEFAULT);
  const offset = integer(args, 'offset', 0, Number.MAX_SAFE_INTEGER, 0);
  const opts = { status: optionalText(args, 'status'), since: optionalText(args, 'since'), until: optionalText(args, 'until') };
  let plan;
  try {
    plan = planList(Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)));
  } catch (err) {
    throw asFieldError(err, { '--status': 'status', '--since': 'since', '--until': 'until' });
  }
  const { data } = await (await ctx.client()).get('/v1/transfers', { query: { ...plan.filters, limit, offset }, schema: TransferPageAnswer });
  const open = await openerFor(ctx, data.items);
  const transfers = data.items.map((t) => transferView(t, open(t)));
  const more = data.hasMore ?? data.items.length === limit;
  const page = { transfers, offset, has_more: more, ...(more ? { next_offset: offset + data.items.length } : {}) };
  return ok(page, `${transfers.length} transfer(s) from offset ${offset}${more ? `; more from offset ${offset + data.items.length}` : ''}`);
}

export async function getBalanceTool(ctx: ReadCtx, raw: unknown): Promise<Outcome> {
  const args = argsOf(raw, ['asset']);
  const assetText = optionalText(args, 'asset');
  let asset: string | undefined;
  try {
    asset = assetText === undefined ? undefined : parseAssetFlag(assetText, 'asset');
  } catch (err) {
    throw asFieldError(err, {});
  }
  const { data } = await (await ctx.client()).get('/v1/accounts/me/balances', { schema: BalancesSchema });
  const entries = data.balances.filter((b) => !asset || b.asset === asset);
  if (asset && entries.length === 0) throw new CliError('not_found', 'balance_not_found', `no ${asset} balance on this account`);
  const reader = entries.some((b) => b.ciphertext !== undefined) ? await ctx.reader() : undefined;
  const balances = entries.map((b) => {
    const amount = reader && b.ciphertext !== undefined && typeof b.version === 'number' ? reader.balance(b.asset, b.version, b.ciphertext) : undefined;
    const nonzero = b.nonzero ?? (amount !== undefined ? amount !== '0' : undefined);
    return { asset: b.asset, ...(amount !== undefined ? { amount } : { encrypted: true }), ...(nonzero !== undefined ? { nonzero } : {}) };
  });
  const text = balances.map((b) => `${b.asset}: ${'amount' in b ? b.amount : 'encrypted (no decryption key for it here)'}`).join('; ') || 'no balances';
  return ok({ balances }, text);
}

export async function checkPolicyTool(ctx: ReadCtx, raw: unknown): Promise<Outcome> {
  const args = argsOf(raw, ['to', 'amount', 'asset']);
  const to = requiredText(args, 'to');
  const amount = requiredText(args, 'amount');
  const asset = optionalText(args, 'asset');
  let req;
  try {
    req = buildTransferRequest(to, amount, asset !== undefined ? { asset } : {});
  } catch (err) {
    throw asFieldError(err, { '--asset': 'asset' });
  }
  const { verdict, preview } = await dryRunVerdict(ctx, req);
  const data = {
    decision: verdict.decision,
    ...(verdict.reason ? { reason: verdict.reason } : {}),
    message: verdict.message,
    checks: verdict.checks,
    ...(preview ? { at: preview.at.toISOString() } : {}),
    dry_run: true,
  };
  return ok(data, `${verdict.decision}: ${verdict.message} (a dry run: nothing was sent)`);
}

/** A held transaction for the model: the resource without ciphertexts, plus what opens here. */
export async function heldView(ctx: ReadCtx, h: HeldResource): Promise<Record<string, unknown>> {
  const opened = await openHeld(ctx, h);
  const { amount_ciphertext: _a, memo_ciphertext: _m, ...rest } = h;
  return { ...rest, ...(opened.amount !== undefined ? { amount: opened.amount } : {}), ...(opened.memo !== undefined ? { memo: opened.memo } : {}) };
}

export async function getPendingTool(ctx: ReadCtx, raw: unknown): Promise<Outcome> {
  const args = argsOf(raw, ['transaction_id']);
  const id = checkTransactionId(requiredText(args, 'transaction_id'));
  const held = await fetchHeld(await ctx.client(), id, { what: `read ${id}` });
  const view = await heldView(ctx, held);
  return ok(view, `held transaction ${held.transaction_id}: ${held.status}${held.transfer_id ? `, transfer ${held.transfer_id}` : ''}`, { outcome: 'ok', ids: { transaction: held.transaction_id, transfer: held.transfer_id } });
}
