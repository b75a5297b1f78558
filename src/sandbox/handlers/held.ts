// A held agent transaction as a resource (beyond the spec, which shows no way to read one:
// docs/agents.md "Held transactions as a resource"):
//   GET /v1/agents/transactions/{transaction_id}   the owner's key or the agent's own
//   GET /v1/agents/transactions?status=&limit=&offset=   the history, newest first
// Approve and reject answer the same resource (agents.ts). The amount and memo appear only as
// ciphertexts to the reader's own viewing key, as transfers carry them.
import { heldFor, heldHistory, heldStatus, HELD_READ_STATUSES, type HeldStatus } from '../agents.js';
import type { ApiContext, Routes } from '../http/context.js';
import { ok, type Reply } from '../http/respond.js';
import type { Account, HeldTransaction } from '../records.js';
import { quorumFields } from '../quorum.js';
import { pageParams } from './validate.js';
import { isoTime } from '../iso-time.js';

/** The reader's own ciphertexts: the owner's, or the agent's (none for anyone else). */
function ciphertextsFor(h: HeldTransaction, reader: Account): { amount_ciphertext?: string; memo_ciphertext?: string } {
  if (reader.account_id === h.owner_account_id) {
    return { ...(h.amount_ciphertext ? { amount_ciphertext: h.amount_ciphertext } : {}), ...(h.memo_ciphertext ? { memo_ciphertext: h.memo_ciphertext } : {}) };
  }
  if (reader.account_id === h.agent_account_id && h.agent_ciphertexts) return { ...h.agent_ciphertexts };
  return {};
}

/** What every view of a held transaction shows, with its status as given. */
function heldFields(h: HeldTransaction, status: string) {
  return {
    transaction_id: h.transaction_id,
    status,
    agent: h.agent,
    to: h.to,
    asset: h.asset,
    requested_at: isoTime(h.requested_at),
    expires_at: isoTime(h.expires_at),
    ...(h.decided_at !== null ? { decided_at: isoTime(h.decided_at) } : {}),
  };
}

/**
 * The 202 answer of a held transfer (approve and reject answer the whole resource, below):
 * `decided_at` once decided, `transfer_id` once approved (a rejection made no transfer: omitted).
 */
export function heldView(h: HeldTransaction) {
  return { ...heldFields(h, h.status), ...quorumFields(h), ...(h.transfer_id !== null ? { transfer_id: h.transfer_id } : {}) };
}

/**
 * The resource: unset fields omitted, never null. `status` is as read `now` (a pending one past
 * `expires_at` is `expired`, whether or not anything touched it; an expiry has no `decided_*`).
 */
export function heldResource(h: HeldTransaction, reader: Account, now: number) {
  return {
    ...heldFields(h, heldStatus(h, now)),
    ...(h.decided_by ? { decided_by: { key_name: h.decided_by.key_name, account: h.decided_by.account } } : {}),
    // Every hold is the approval threshold's; one held before the rule was recorded says so too.
    rule: h.rule ?? 'hitl_threshold',
    ...(h.hitl_threshold_usdc !== undefined ? { hitl_threshold_usdc: h.hitl_threshold_usdc } : {}),
    ...quorumFields(h),
    ...(h.reason !== undefined ? { reason: h.reason } : {}),
    ...(h.transfer_id !== null ? { transfer_id: h.transfer_id } : {}),
    ...ciphertextsFor(h, reader),
  };
}

function getHeld(ctx: ApiContext): Reply {
  const h = heldFor(ctx.world, ctx.account, ctx.params.transaction_id!);
  return ok(heldResource(h, ctx.account, ctx.world.now()));
}

function listHeld(ctx: ApiContext): Reply {
  const page = pageParams<HeldStatus>(ctx.query, HELD_READ_STATUSES);
  const { limit, offset } = page;
  const now = ctx.world.now();
  const { items, hasMore } = heldHistory(ctx.world, ctx.account, page);
  return ok({ transactions: items.map((h) => heldResource(h, ctx.account, now)), limit, offset, has_more: hasMore });
}

export function registerHeldReads(routes: Routes): void {
  routes.api('GET', '/v1/agents/transactions', listHeld);
  routes.api('GET', '/v1/agents/transactions/:transaction_id', getHeld);
}
