// send_transfer: the request checked as `transfer send` checks it, then sent through the same
// send journal (transfer/send-journal.ts, send.ts's postJournaled), so a call the model repeats
// with the same idempotency key never pays twice, in this session or a later one: it is answered
// from the earlier transfer. A held transfer is a normal result the model is told what to do
// with; a denial is a tool error carrying the policy's reason (results.ts).
import { randomUUID } from 'node:crypto';
import { TransferSchema, type HeldTransaction, type Transfer } from '../../api/schemas.js';
import { parseAmount } from '../../domain/amount.js';
import type { Needs } from '../../runtime/factory.js';
import { buildTransferRequest } from '../transfer/request.js';
import { openSendJournal, priorUse, type Earlier } from '../transfer/send-journal.js';
import { isHeld, nothingMade, postJournaled } from '../transfer/send.js';
import { transferPath } from '../transfer/id.js';
import { acceptedError } from '../transfer/accepted.js';
import { argsOf, asFieldError, optionalText, requiredText } from './args.js';
import type { SessionBudget } from './budget.js';
import { ok, type Outcome } from './results.js';

export type SendCtx = Needs<'account' | 'auth' | 'client' | 'clock' | 'env' | 'globals' | 'io'>;

export const SEND_FIELDS = ['to', 'amount', 'asset', 'memo', 'idempotency_key'] as const;
const FLAG_FIELDS = { '--memo': 'memo', '--idempotency-key': 'idempotency_key', '--asset': 'asset' };

/** What the model is told about a held transfer. */
export function heldNext(id: string): string {
  return `A human must approve this transfer before any money moves (the account owner runs \`svc pending approve ${id}\` or rejects it). Do not send it again: call wait_for_decision with transaction_id ${id} to learn the outcome.`;
}

export async function sendTool(ctx: SendCtx, budget: SessionBudget, raw: unknown): Promise<Outcome> {
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
  // Reserved before any await: two calls at once cannot both pass the session's budget.
  const reserved = budget.reserve(parsed.units, req.asset);
  let keep = false;
  try {
    const client = await ctx.client();
    const key = idempotencyKey ?? randomUUID();
    const journal = openSendJournal(ctx.env, { baseUrl: client.baseUrl, accountId: (await ctx.account()).account_id }, () => ctx.clock.now(), key);
    const fingerprint = journal.fingerprint(req);
    const earlier = priorUse(journal.find(key), fingerprint, ctx.clock.now());
    // Accepted before (this session counted it then, or an earlier session did): shown, not paid again.
    if (earlier) return await replay(ctx, earlier);
    let posted;
    try {
      posted = await postJournaled(ctx, client, journal, { key, request: fingerprint }, req, key);
    } catch (err) {
      keep = !nothingMade(err); // the outcome is unknown: it may have been made, so it still counts
      throw err;
    }
    keep = true;
    return isHeld(posted.data) ? heldResult(posted.data, key) : sentResult(posted.data, key);
  } finally {
    if (!keep) budget.release(reserved);
  }
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

/** The earlier send under this key, as the service answered it then (a transfer read back, or the held transaction). */
async function replay(ctx: Needs<'client'>, e: Earlier): Promise<Outcome> {
  const key = e.sent_key ?? e.key;
  if (e.status === 'held') return heldResult({ transaction_id: e.transaction_id ?? '', expires_at: e.expires_at ?? '' }, key, true);
  const id = e.transfer_id ?? '';
  try {
    const { data } = await (await ctx.client()).get(transferPath(id), { schema: TransferSchema });
    return sentResult(data, key, true);
  } catch (err) {
    throw acceptedError(err, { key, transferId: id, earlierAt: e.at });
  }
}
