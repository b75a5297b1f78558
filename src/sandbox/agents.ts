// Agents: creation, spend-policy enforcement with the shared engine
// (src/domain/policy.ts), today's spend, and the human approval queue of held transactions.
// Every function is synchronous: a check and the change it guards happen in one turn of the
// event loop, so two requests (approve and reject of one transaction) can never interleave.
import { contexts } from '../crypto/ciphertext.js';
import { parseNonNegativeDecimal } from '../domain/amount.js';
import { compilePolicy, evaluatePolicy, mergePolicyFields, toPolicyUnits, type Evaluation, type PolicyFields } from '../domain/policy.js';
import { parseRecipient } from '../domain/recipient.js';
import { utcDay } from '../domain/time-range.js';
import { createAccount } from './accounts.js';
import { ApiFault } from './faults.js';
import { newPolicyId, newTransactionId } from './ids.js';
import type { Account, AgentStatus, Approver, HeldTransaction, SpendPolicyRecord, Transfer } from './records.js';
import { aad } from './seal-contexts.js';
import { findRecipient } from './recipient.js';
import { encryptFor } from './viewing.js';
import type { World } from './world.js';

export { AGENT_NAME_RE, AGENT_NAME_RULE } from '../domain/agent-name.js';
export { newPolicyId, newTransactionId };

/** YYYY-MM-DD of the UTC day containing `at`. */
export function utcDayKey(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

// ---- agents and policies ------------------------------------------------------------------------

/** Only personal and business accounts own agents; an agent's own key is refused. */
export function assertNotAgent(account: Account, action: string): void {
  if (account.type === 'agent') {
    throw new ApiFault(403, 'forbidden', `${account.handle} is an agent: an agent's key cannot ${action}; use its owner's key`);
  }
}

export function createAgent(world: World, owner: Account, name: string, fields: PolicyFields): { agent: Account; policy: SpendPolicyRecord; decryptionKey?: string } {
  const { store } = world;
  const handle = `${owner.handle}/${name}`;
  if (store.accountByHandle(handle)) {
    throw new ApiFault(409, 'agent_name_taken', `${owner.handle} already has an agent named "${name}" (${handle}); pick another name`);
  }
  const now = world.now();
  return store.tx(() => {
    const { account, decryptionKey } = createAccount(
      store,
      // The agent inherits its owner's identity verification; its wallet is confidential-ready.
      { handle, type: 'agent', kyc_status: owner.kyc_status, confidential_ready: true, parent_account_id: owner.account_id, status: 'active' },
      now,
    );
    const policy = store.setPolicy({ policy_id: newPolicyId(), agent_account_id: account.account_id, fields, created_at: now, updated_at: now });
    return decryptionKey ? { agent: account, policy, decryptionKey } : { agent: account, policy };
  });
}

/**
 * Applies a validated patch (only the fields sent change; null clears one). A patch that changes
 * nothing leaves `updated_at` alone and fires no event.
 */
export function patchPolicy(world: World, agent: Account, patch: PolicyFields): SpendPolicyRecord {
  const { store } = world;
  const current = policyOf(world, agent);
  const merged = mergePolicyFields(current.fields, patch);
  if (sameFields(current.fields, merged)) return current;
  const now = world.now();
  return store.tx(() => {
    const next = store.setPolicy({ ...current, fields: merged, updated_at: Math.max(now, current.updated_at) });
    store.emit({ type: 'agent.policy.updated', agent, policy_id: next.policy_id, at: now });
    return next;
  });
}

/** Whether two policies say the same: limits compared as exact decimals (1.5 is "1.50"). */
function sameFields(a: PolicyFields, b: PolicyFields): boolean {
  const norm = (f: PolicyFields) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(f)) {
      if (v === null || v === undefined) continue;
      out[k] = k.endsWith('_usdc') ? String(parseNonNegativeDecimal(String(v).trim(), 6)) : v;
    }
    return JSON.stringify(Object.keys(out).sort().map((k) => [k, out[k]]));
  };
  return norm(a) === norm(b);
}

/** The agent's policy (every agent has one; an empty one means no restriction). */
export function policyOf(world: World, agent: Account): SpendPolicyRecord {
  const p = world.store.policy(agent.account_id);
  if (p) return p;
  // Not reachable through the API (an agent is created with its policy): fail closed anyway.
  throw new Error(`agent ${agent.account_id} has no spend policy`);
}

/**
 * What the agent has spent on the UTC day containing `at`, in policy units: its transfers
 * created that day that are pending or confirmed. Failed ones moved nothing; held or rejected
 * transactions are not transfers (an approved one counts through the transfer it created).
 */
export function spentOn(world: World, agent: Account, at: number): bigint {
  const { start, end } = utcDay(new Date(at));
  const { items } = world.store.listTransfers(agent.account_id, {
    limit: Number.MAX_SAFE_INTEGER,
    offset: 0,
    after: start.getTime() - 1,
    before: end.getTime(),
  });
  let total = 0n;
  for (const t of items) {
    if (t.from_account_id !== agent.account_id || t.status === 'failed') continue;
    total += toPolicyUnits(world.sealer.openAmount(t.amount_sealed, aad.transferAmount(t.transfer_id)), t.asset);
  }
  return total;
}

/**
 * The last daily-spent ciphertext per agent and reader (memory only), so that a read that changes
 * nothing answers the same bytes: re-encrypted only when the day, the spend or the reader's key
 * changes.
 */
const dailySpentCache = new WeakMap<Account, Map<string, { day: string; spent: bigint; readerKey: string; ciphertext: string }>>();

/**
 * Today's spend encrypted to the reader's viewing key (sandbox-only fields of the policy read):
 * the owner's, or the agent's own when its key reads its policy (what `transfer send --dry-run`
 * needs to foresee the daily limit).
 */
export function dailySpentFor(world: World, agent: Account, reader: Account): { daily_spent_ciphertext: string; daily_spent_day: string } | undefined {
  if (!reader.viewing_public_key) return undefined;
  const now = world.now();
  const day = utcDayKey(now);
  const spent = spentOn(world, agent, now);
  let byReader = dailySpentCache.get(agent);
  if (!byReader) dailySpentCache.set(agent, (byReader = new Map()));
  const cached = byReader.get(reader.account_id);
  if (cached && cached.day === day && cached.spent === spent && cached.readerKey === reader.viewing_public_key) {
    return { daily_spent_ciphertext: cached.ciphertext, daily_spent_day: day };
  }
  const ct = encryptFor(reader, spent.toString(), contexts.dailySpent(agent.account_id, day, reader.account_id));
  if (!ct) return undefined;
  byReader.set(reader.account_id, { day, spent, readerKey: reader.viewing_public_key, ciphertext: ct });
  return { daily_spent_ciphertext: ct, daily_spent_day: day };
}

// ---- agent status (sandbox extension: suspend / resume) -----------------------------------------

/**
 * What a suspended agent's key gets on a money-moving call: 403 forbidden (DESIGN.md's code for
 * an agent's key refused a route) with `reason: "agent_suspended"`, so a script can tell why.
 */
export function agentSuspended(agent: Account): ApiFault {
  return new ApiFault(
    403,
    'forbidden',
    `agent ${agent.handle} is suspended and cannot move funds; its owner can resume it with "svc agent resume ${agent.handle}"`,
    { reason: 'agent_suspended' },
  );
}

/** Sets an agent's status; setting the status it already has changes nothing. No event. */
export function setAgentStatus(world: World, agent: Account, status: AgentStatus): Account {
  return world.store.setAgentStatus(agent, status);
}

// ---- an agent's transfer attempt ----------------------------------------------------------------

export interface AgentAttempt {
  to: string;
  asset: string;
  units: bigint;
  confidential: boolean;
  memo: string | undefined;
}

/** Evaluates an attempt at the sandbox clock's now against the agent's current policy. */
export function evaluateAttempt(world: World, agent: Account, attempt: AgentAttempt): Evaluation {
  const now = world.now();
  return evaluatePolicy(compilePolicy(policyOf(world, agent).fields), {
    to: attempt.to,
    amount: attempt.units,
    asset: attempt.asset,
    at: new Date(now),
    spentToday: spentOn(world, agent, now),
  });
}

/**
 * The policy gate of POST /v1/transfers for an agent's key: deny → 403 policy_violation with
 * `reason`; hold → the held transaction (nothing reserved, no transfer); allow → undefined.
 */
export function gateAgentTransfer(world: World, agent: Account, attempt: AgentAttempt): HeldTransaction | undefined {
  const e = evaluateAttempt(world, agent, attempt);
  if (e.decision === 'deny') {
    throw new ApiFault(403, 'policy_violation', `the spend policy of ${agent.handle} denies this transfer: ${e.message}`, { reason: e.reason });
  }
  if (e.decision === 'hold') return holdTransaction(world, agent, attempt);
  return undefined;
}

/** Holds an attempt for its owner's approval (after the gate; `svc sandbox trigger` holds a sample directly). */
export function holdTransaction(world: World, agent: Account, attempt: AgentAttempt): HeldTransaction {
  const { store, sealer } = world;
  const owner = store.account(agent.parent_account_id ?? '');
  if (!owner) throw new Error(`agent ${agent.account_id} has no owner`);
  const now = world.now();
  const id = newTransactionId();
  const held: HeldTransaction = {
    transaction_id: id,
    agent_account_id: agent.account_id,
    owner_account_id: owner.account_id,
    agent: agent.handle,
    to: attempt.to,
    asset: attempt.asset,
    confidential: attempt.confidential,
    requested_at: now,
    expires_at: now + world.approvalWindowMs,
    status: 'pending_approval',
    decided_at: null,
    transfer_id: null,
    amount_sealed: sealer.sealAmount(attempt.units, aad.heldAmount(id)),
    memo_sealed: attempt.memo === undefined ? null : sealer.sealText(attempt.memo, aad.heldMemo(id)),
  };
  // For the owner's tool and the agent's: what each shows after local decryption (computed once, here).
  const amountCt = encryptFor(owner, attempt.units.toString(), contexts.heldAmount(id, owner.account_id));
  if (amountCt) held.amount_ciphertext = amountCt;
  if (attempt.memo !== undefined) {
    const memoCt = encryptFor(owner, attempt.memo, contexts.heldMemo(id, owner.account_id));
    if (memoCt) held.memo_ciphertext = memoCt;
  }
  const agentAmountCt = encryptFor(agent, attempt.units.toString(), contexts.heldAmount(id, agent.account_id));
  if (agentAmountCt) {
    const memoCt = attempt.memo === undefined ? undefined : encryptFor(agent, attempt.memo, contexts.heldMemo(id, agent.account_id));
    held.agent_ciphertexts = { amount_ciphertext: agentAmountCt, ...(memoCt ? { memo_ciphertext: memoCt } : {}) };
  }
  // What held it: always the approval threshold (the engine's only hold), as the policy said then.
  const fields = policyOf(world, agent).fields;
  const threshold = fields.hitl_threshold_usdc;
  held.rule = 'hitl_threshold';
  if (threshold !== null && threshold !== undefined) held.hitl_threshold_usdc = typeof threshold === 'string' ? Number(threshold) : threshold;
  // The quorum is fixed now: a later policy change does not move the goalposts of this one.
  held.approvals_required = fields.approvals_required ?? 1;
  held.approvals = [];
  return store.hold(held);
}

// ---- the approval queue -------------------------------------------------------------------------

/** The owner's still-pending, unexpired held transactions, oldest first. */
export function pendingFor(world: World, owner: Account): HeldTransaction[] {
  const now = world.now();
  const out: HeldTransaction[] = [];
  for (const h of world.store.heldTransactions()) {
    if (h.owner_account_id === owner.account_id && h.status === 'pending_approval' && now < h.expires_at) out.push(h);
  }
  return out;
}

// ---- the held transaction as a resource (beyond the spec: docs/agents.md) ---------------------

/** What a held transaction reads as: a pending one whose window has closed is `expired`, stored or not. */
export type HeldStatus = HeldTransaction['status'] | 'expired';
export const HELD_READ_STATUSES: readonly HeldStatus[] = ['pending_approval', 'approved', 'rejected', 'expired'];

export function heldStatus(h: HeldTransaction, now: number): HeldStatus {
  return h.status === 'pending_approval' && now >= h.expires_at ? 'expired' : h.status;
}

/** Whether `account` may read it: its owner, or the agent that proposed it. */
function mayRead(h: HeldTransaction, account: Account): boolean {
  return h.owner_account_id === account.account_id || h.agent_account_id === account.account_id;
}

/** One held transaction for its owner or its agent; anyone else's is 404 (existence is not revealed). */
export function heldFor(world: World, reader: Account, transactionId: string): HeldTransaction {
  const held = world.store.heldTransaction(transactionId);
  if (!held || !mayRead(held, reader)) {
    throw new ApiFault(404, 'transaction_not_found', `no held transaction ${transactionId} for ${reader.handle}`);
  }
  return held;
}

/**
 * A page of the history the reader may see (an owner: every agent's; an agent: its own),
 * newest first, decided and expired ones included; `status` filters by the status as read now.
 */
export function heldHistory(world: World, reader: Account, q: { status?: HeldStatus; limit: number; offset: number }): { items: HeldTransaction[]; hasMore: boolean } {
  const now = world.now();
  const matching: HeldTransaction[] = [];
  for (const h of world.store.heldTransactions()) {
    if (mayRead(h, reader) && (q.status === undefined || heldStatus(h, now) === q.status)) matching.push(h);
  }
  // Held in order (the store keeps insertion order): newest first is the reverse; requested_at
  // first, in case an import changed the order.
  matching.reverse();
  matching.sort((a, b) => b.requested_at - a.requested_at);
  return { items: matching.slice(q.offset, q.offset + q.limit), hasMore: matching.length > q.offset + q.limit };
}

/**
 * Approves or rejects one held transaction (a rejection keeps the owner's `reason`, when given).
 * Checks, in order: the caller is not an agent (403 forbidden), the transaction is the caller's
 * (404 transaction_not_found), still pending (409 transaction_already_decided), inside its window
 * (409 transaction_expired). A rejection by any owner key ends it. An approval counts once per
 * key (`by.key_id`; the same key again: 409 already_approved, nothing changes); short of the
 * quorum it is recorded and the transaction stays pending; the one that reaches it makes the
 * transfer, and if the agent's balance is short answers 402 insufficient_balance without being
 * recorded (it stays pending with the approvals before it). `by` is kept on the record.
 */
export function decide(world: World, owner: Account, transactionId: string, decision: 'approve' | 'reject', by: Approver, reason?: string): { held: HeldTransaction; transfer?: Transfer } {
  assertNotAgent(owner, `${decision} held transactions`);
  const { store } = world;
  const held = store.heldTransaction(transactionId);
  if (!held || held.owner_account_id !== owner.account_id) {
    throw new ApiFault(404, 'transaction_not_found', `no held transaction ${transactionId} for ${owner.handle}`);
  }
  if (held.status !== 'pending_approval') {
    throw new ApiFault(409, 'transaction_already_decided', `transaction ${transactionId} was already ${held.status} at ${new Date(held.decided_at ?? held.requested_at).toISOString()}`, { status: held.status });
  }
  const now = world.now();
  if (now >= held.expires_at) {
    throw new ApiFault(409, 'transaction_expired', `the approval window of ${transactionId} closed at ${new Date(held.expires_at).toISOString()}; nothing was sent`);
  }
  const decidedBy = { key_name: by.key_name, account: by.account };
  if (decision === 'reject') return { held: store.decideHeld(held, { status: 'rejected', by: decidedBy, reason }, now) };
  const approvals = held.approvals ?? [];
  const required = held.approvals_required ?? 1;
  const mine = approvals.find((a) => a.key_id === by.key_id);
  if (mine) {
    throw new ApiFault(409, 'already_approved', `key "${by.key_name}" of ${owner.handle} already approved ${transactionId} at ${new Date(mine.at).toISOString()}; it needs ${required} approvals by distinct keys (${approvals.length} so far): another approver's key must approve it`);
  }
  const approval = { ...by, at: now };
  if (approvals.length + 1 < required) return { held: store.recordApproval(held, approval) };
  const agent = store.account(held.agent_account_id);
  if (!agent) throw new Error(`held transaction ${transactionId} has no agent`);
  // Checked when it was held; lower case reads one held before checksums were checked the same way.
  const recipient = parseRecipient(held.to) ?? parseRecipient(held.to.toLowerCase());
  const found = recipient ? findRecipient(store, recipient) : undefined;
  if (!found) throw new ApiFault(404, 'recipient_not_found', `no account has the handle ${held.to}`);
  const { account: toAccount, address: toAddress } = found;
  const units = world.sealer.openAmount(held.amount_sealed, aad.heldAmount(held.transaction_id));
  const memo = held.memo_sealed === null ? undefined : world.sealer.openText(held.memo_sealed, aad.heldMemo(held.transaction_id));
  // The transfer and the approval that completes the quorum commit together.
  return store.tx(() => {
    const transfer = world.chain.submit({ from: agent, to: held.to, toAccount, toAddress, asset: held.asset, units, confidential: held.confidential, memo, now });
    if (!transfer) {
      throw new ApiFault(402, 'insufficient_balance', `${agent.handle} does not have enough ${held.asset} for ${transactionId}; it stays pending until ${new Date(held.expires_at).toISOString()} (fund the agent and approve again)`);
    }
    return { held: store.decideHeld(held, { status: 'approved', transferId: transfer.transfer_id, by: decidedBy, approval }, now), transfer };
  });
}
