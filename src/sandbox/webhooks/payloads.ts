// Event fan-out and payloads. A sandbox event becomes one webhook event per account side:
// a transfer's sender gets `direction: "sent"`, a receiving sandbox account its own event with
// `direction: "received"`. Each event goes to the account concerned and to its parent (an
// agent's owner). No payload ever carries an amount or a memo: they are built field by field
// from the records' public metadata only.
import type { EventType } from '../../domain/events.js';
import { randomAlnum } from '../ids.js';
import type { Account, HeldTransaction, Transfer } from '../records.js';
import type { SandboxEvent } from '../store/events.js';
import type { Store } from '../store/store.js';
import { quorumFields } from '../quorum.js';

export const newEventId = () => `evt_${randomAlnum(24)}`;
const iso = (ms: number) => new Date(ms).toISOString();

/** One event for one account, before it is stored. */
export interface EventSide {
  type: EventType;
  /** The account concerned. */
  account: Account;
  occurredAt: number;
  /** Payload fields other than event_id, event, timestamp and occurred_at. */
  fields: Record<string, unknown>;
}

/** The accounts whose subscriptions see an account's events: itself and its parent. */
export function audienceOf(store: Store, account: Account): string[] {
  const out = [account.account_id];
  const parent = account.parent_account_id;
  if (parent && parent !== account.account_id && store.account(parent)) out.push(parent);
  return out;
}

/**
 * The JSON body of an event. Key order is fixed; `timestamp` is set to `occurred_at` here and
 * replaced by the signing time at each attempt (see withTimestamp).
 */
export function eventBody(eventId: string, side: EventSide): string {
  const at = iso(side.occurredAt);
  return JSON.stringify({ event_id: eventId, event: side.type, ...side.fields, timestamp: at, occurred_at: at });
}

/** The body of one attempt: the stored body with `timestamp` = the time it is signed. */
export function withTimestamp(body: string, at: number): string {
  const doc = JSON.parse(body) as Record<string, unknown>;
  doc.timestamp = iso(at);
  return JSON.stringify(doc);
}

function transferFields(t: Transfer, direction: 'sent' | 'received', account: Account, counterparty: string) {
  return {
    account: account.handle,
    direction,
    counterparty,
    asset: t.asset,
    confidential: t.confidential,
    tx_hash: t.tx_hash,
    transfer_id: t.transfer_id,
  };
}

/**
 * A held transaction's event: the spec's fields, then (beyond the spec, DESIGN.md "Quorum") the
 * quorum and who approved it so far, as the held resource shows them: key names and handles,
 * never an amount. `agent.transaction.approved` fires once, at the quorum.
 */
function heldFields(h: HeldTransaction, type: EventType) {
  return {
    transaction_id: h.transaction_id,
    agent: h.agent,
    to: h.to,
    requested_at: iso(h.requested_at),
    expires_at: iso(h.expires_at),
    ...quorumFields(h),
    ...(type === 'agent.transaction.approved' && h.transfer_id ? { transfer_id: h.transfer_id } : {}),
  };
}

/** The webhook events a sandbox event produces (none for events that are not webhook types). */
export function sidesOf(store: Store, e: SandboxEvent): EventSide[] {
  switch (e.type) {
    case 'transfer.initiated':
    case 'transfer.confirmed':
    case 'transfer.failed': {
      const t = e.transfer;
      const sides: EventSide[] = [];
      const from = store.account(t.from_account_id);
      if (from) sides.push({ type: e.type, account: from, occurredAt: e.at, fields: transferFields(t, 'sent', from, t.to) });
      const to = t.to_account_id && t.to_account_id !== t.from_account_id ? store.account(t.to_account_id) : undefined;
      if (to) sides.push({ type: e.type, account: to, occurredAt: e.at, fields: transferFields(t, 'received', to, t.from) });
      return sides;
    }
    case 'agent.transaction.pending_approval':
    case 'agent.transaction.approved':
    case 'agent.transaction.rejected': {
      const agent = store.account(e.held.agent_account_id);
      if (!agent) return [];
      return [{ type: e.type, account: agent, occurredAt: e.at, fields: heldFields(e.held, e.type) }];
    }
    case 'agent.policy.updated':
      return [{ type: e.type, account: e.agent, occurredAt: e.at, fields: { agent: e.agent.handle, policy_id: e.policy_id } }];
    default:
      return [];
  }
}

/**
 * A sample event for `svc sandbox trigger`: event `e` of objects that exist (sandbox/samples.ts
 * makes them), as the account it concerns sees it, marked `sample: true`.
 */
export function sampleSide(store: Store, e: SandboxEvent): EventSide | undefined {
  const side = sidesOf(store, e)[0];
  return side && { ...side, fields: { ...side.fields, sample: true } };
}
