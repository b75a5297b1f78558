// send_transfer: the request checked as `transfer send` checks it, then paid through the same
// engine (core/payment.ts: the ledger and the delivery outcome), so a call the model repeats with
// the same idempotency key never pays twice, in this session or a later one: it is answered from
// what the earlier call made, a held transfer followed to what it became. A held transfer is a
// normal result the model is told what to do with; a denial is a tool error carrying the
// policy's reason (results.ts).
import { randomUUID } from 'node:crypto';
import { TransferSchema, type HeldResource, type HeldTransaction, type Transfer } from '../../api/schemas.js';
import { parseAmount } from '../../domain/amount.js';
import { CliError } from '../../errors.js';
import type { Needs } from '../../runtime/factory.js';
import { buildTransferRequest } from '../../core/request.js';
import { isHeld, Payment, type Earlier, type Prior } from '../../core/payment.js';
import { transferPath } from '../transfer/id.js';
import { acceptedError } from '../transfer/accepted.js';
import { argsOf, asFieldError, optionalText, requiredText } from './args.js';
import type { Reservation, SessionBudget } from './budget.js';
import type { Confirm } from './confirm.js';
import { fetchHeld } from '../../core/held.js';
import { ok, type Outcome } from './results.js';
import { svc } from '../../domain/shell-command.js';

export type SendCtx = Needs<'account' | 'auth' | 'client' | 'clock' | 'env' | 'globals' | 'io' | 'serviceClock'>;

export const SEND_FIELDS = ['to', 'amount', 'asset', 'memo', 'idempotency_key'] as const;
const FLAG_FIELDS = { '--memo': 'memo', '--idempotency-key': 'idempotency_key', '--asset': 'asset' };

/** What the model is told about a held transfer. */
export function heldNext(id: string): string {
  return `A human must approve this transfer before any money moves (the account owner runs ${svc`pending approve ${id}`} or rejects it). Do not send it again: call wait_for_decision with transaction_id ${id} to learn the outcome.`;
}

/**
 * `confirm` (--confirm-sends, confirm.ts) asks the person at the host before a send: after the
 * arguments and the budget (a refused send needs no question), before the request; a replay sends
 * nothing and is not asked. Not confirmed, it throws, and the reservation is given back.
 */
export async function sendTool(ctx: SendCtx, budget: SessionBudget, raw: unknown, confirm?: Confirm): Promise<Outcome> {
  const args = argsOf(raw, SEND_FIELDS);
  const to = requiredText(args, 'to');
  const amount = requiredText(args, 'amount');
  const asset = optionalText(args, 'asset');
  const memo = optionalText(args, 'memo');
  const idempotencyKey = optionalText(args, 'idempotency_key');
  let req;
  try {
    req = buildTransferRequest(to, amount, { ...(asset !== undefined ? { asset } : {}), ...(memo !== undefined ? { memo } : {}), ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) });
  } catch (err) {
    throw asFieldError(err, FLAG_FIELDS);
  }
  const parsed = parseAmount(req.amount, req.asset);
  if (!parsed.ok) throw new Error('sendTool: the request was not validated'); // buildTransferRequest did
  const key = idempotencyKey ?? randomUUID();
  let payment = await Payment.open(ctx, req, key);
  try {
    const prior = await payment.prior();
    // Made before (this session counted it then, or an earlier session did): shown, not paid or counted again.
    if (prior.kind === 'earlier') return await replay(ctx, budget, payment, prior.earlier);
    // Sent again under the key after an unknown outcome: the share this session kept for it is the
    // one at stake (a second would count one payment twice, or refuse the retry for the budget).
    // Otherwise reserved now, synchronously: two calls at once cannot both pass the budget.
    const kept = prior.kind === 'again' ? budget.kept(key) : undefined;
    const reserved = kept ?? (await reserveWithin(ctx, budget, parsed.units, req.asset));
    let keep = kept !== undefined;
    try {
      let now: Prior = prior;
      if (confirm) {
        await confirm(req);
        // The question took the person's time: the key is judged again, on the ledger as it is now,
        // before anything is sent (a call under the same key may have made it meanwhile; a
        // retry's window may have closed).
        payment.close();
        payment = await Payment.open(ctx, req, key);
        now = await payment.prior();
      }
      // Made by the other call, which counted it: this one's own reservation goes back (a share it
      // kept after an unknown outcome stays: it is that payment's).
      if (now.kind === 'earlier') return await replay(ctx, budget, payment, now.earlier);
      let posted;
      try {
        posted = await payment.send(req, now.kind === 'again' ? now.sentKey : key, { reachedBefore: now.kind === 'again' });
      } catch (err) {
        // Not sent, or refused: nothing was made. Otherwise it may have been: it still counts.
        keep ||= !(err instanceof CliError && (err.delivery === 'not_sent' || err.delivery === 'refused'));
        throw withKey(err, key);
      }
      keep = true;
      if (!isHeld(posted.data)) return sentResult(posted.data, posted.key);
      budget.hold(reserved, posted.data.transaction_id);
      return heldResult(posted.data, posted.key);
    } finally {
      if (keep) budget.keep(reserved, key);
      else budget.release(reserved);
    }
  } finally {
    payment.close();
  }
}

/**
 * A send that may have been made without an answer saying so (no answer, a 5xx) names its key:
 * the model may not have given one, and the same call under it is the only way to learn what it
 * made without paying twice. (`idempotency_outcome_unknown` names it already.)
 */
function withKey(err: unknown, key: string): unknown {
  if (!(err instanceof CliError) || err.delivery !== 'unknown' || err.code === 'idempotency_outcome_unknown') return err;
  return err.with({
    details: {
      idempotency_key: key,
      relay: `No answer said whether this transfer was made: it may have been. Do not send it under another idempotency key: call send_transfer again with the same arguments and idempotency_key ${key}, which never pays twice and tells what it made; if that fails too, tell the user.`,
    },
  });
}

/**
 * Reserves the send's share; when the budget is short while held transfers still count, asks the
 * service what became of them first (a rejected or expired one gives its share back), then once more.
 */
async function reserveWithin(ctx: Needs<'client'>, budget: SessionBudget, units: bigint, asset: string): Promise<Reservation> {
  try {
    return budget.reserve(units, asset);
  } catch (err) {
    if (!(err instanceof CliError) || err.code !== 'session_budget_exceeded' || budget.undecided().length === 0) throw err;
  }
  const client = await ctx.client();
  for (const id of budget.undecided()) {
    try {
      budget.decided(id, (await fetchHeld(client, id)).status);
    } catch {
      // Unknown still: it keeps counting.
    }
  }
  return budget.reserve(units, asset);
}

function sentResult(t: Transfer, key: string, replayed = false): Outcome {
  const data = {
    status: t.status,
    transfer_id: t.transfer_id,
    to: t.to,
    ...(t.asset !== undefined ? { asset: t.asset } : {}),
    confidential: t.confidential,
    created_at: t.created_at,
    idempotency_key: key,
    ...(replayed ? { replayed: true } : {}),
  };
  const text = `${replayed ? 'already sent earlier under this idempotency key (not sent again)' : 'sent'}: transfer ${t.transfer_id} (${t.status}) to ${t.to}; idempotency key ${key}`;
  return ok(data, text, { outcome: replayed ? 'replayed' : 'ok', ids: { transfer: t.transfer_id } });
}

function heldResult(h: Pick<HeldTransaction, 'transaction_id' | 'expires_at'> & { rule?: unknown }, key: string, replayed = false): Outcome {
  const data = {
    status: 'pending_approval',
    transaction_id: h.transaction_id,
    expires_at: h.expires_at,
    // The spec's one reason to hold: the approval threshold.
    rule: typeof h.rule === 'string' ? h.rule : 'hitl_threshold',
    next: heldNext(h.transaction_id),
    idempotency_key: key,
    ...(replayed ? { replayed: true } : {}),
  };
  const text = `held for human approval: transaction ${h.transaction_id} (until ${h.expires_at}). ${data.next}`;
  return ok(data, text, { outcome: replayed ? 'replayed' : 'held', ids: { transaction: h.transaction_id } });
}

/**
 * The earlier send under this key: the transfer read back, or the held transaction followed to
 * what it became (the transfer once approved; rejected or expired said as the wait says it).
 * Nothing is sent, so nothing is reserved.
 */
async function replay(ctx: Needs<'client'>, budget: SessionBudget, payment: Payment, e: Earlier): Promise<Outcome> {
  const client = await ctx.client();
  let transferId = e.transferId;
  if (transferId === undefined) {
    const id = e.transactionId ?? '';
    let held: HeldResource | undefined;
    try {
      held = await payment.learnHeld(client, id);
    } catch (err) {
      if (!(err instanceof CliError) || err.code !== 'unsupported_by_service') throw acceptedError(err, { key: e.sentKey, transactionId: id, earlierAt: e.at });
    }
    // What it became, the session's budget learns too (rejected or expired gives its share back).
    if (held) budget.decided(id, held.status);
    if (held?.status === 'approved' && held.transfer_id !== undefined) transferId = held.transfer_id;
    else if (held?.status === 'rejected' || held?.status === 'expired') return decidedResult(id, held.status, e.sentKey);
    else return heldResult({ transaction_id: id, expires_at: held?.expires_at ?? e.expiresAt ?? '' }, e.sentKey, true);
  }
  try {
    const { data } = await client.get(transferPath(transferId), { schema: TransferSchema });
    return sentResult(data, e.sentKey, true);
  } catch (err) {
    throw acceptedError(err, { key: e.sentKey, transferId, earlierAt: e.at });
  }
}

/** A held transfer a human rejected, or nobody approved in time: nothing was sent, and sending it again is not the model's call. */
function decidedResult(id: string, status: 'rejected' | 'expired', key: string): Outcome {
  const next = status === 'rejected'
    ? 'A human rejected this transfer earlier: nothing was sent. Tell the user; do not send it again.'
    : 'Nobody approved this transfer in time: nothing was sent. Tell the user; sending it again needs a new idempotency key and a new approval.';
  return ok({ status, transaction_id: id, idempotency_key: key, replayed: true, next }, `${status}: held transaction ${id} (sent earlier under this idempotency key); nothing was sent`, { outcome: status, ids: { transaction: id } });
}
