// The approvals a held transaction has gathered toward its quorum (beyond the spec: DESIGN.md
// "Quorum", docs/approvals.md "Two-person approval"): `approvals_required` (1 to 5) and
// `approvals` [{key_name, account, at}], newest last, on the held resource, approve's answer and
// the queue's items. Read leniently from whatever object the service answered, so a service
// without quorum (or an entry svc cannot read) degrades to "one approval decides" rather than
// failing. Every word built here is sanitised: key names are text other people wrote.
import { sanitize } from '../io/sanitize.js';

export interface Approval {
  keyName: string;
  account: string;
  at?: string;
}

export interface Quorum {
  required: number;
  /** Newest last. */
  approvals: Approval[];
}

function approvalOf(v: unknown): Approval[] {
  if (!v || typeof v !== 'object') return [];
  const o = v as Record<string, unknown>;
  if (typeof o.key_name !== 'string' || typeof o.account !== 'string') return [];
  return [{ keyName: o.key_name, account: o.account, ...(typeof o.at === 'string' ? { at: o.at } : {}) }];
}

/** The quorum an answer carries; undefined when it says nothing of one (a single approval decides). */
export function quorumOf(v: unknown): Quorum | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const req = o.approvals_required;
  const required = typeof req === 'number' && Number.isInteger(req) && req >= 1 ? req : undefined;
  const approvals = Array.isArray(o.approvals) ? o.approvals.flatMap(approvalOf) : undefined;
  if (required === undefined && approvals === undefined) return undefined;
  return { required: required ?? 1, approvals: approvals ?? [] };
}

/** Whether more than one approval is needed: only then do screens speak of approvals at all. */
export function isQuorum(q: Quorum | undefined): q is Quorum {
  return q !== undefined && q.required > 1;
}

/** `key "ops2" of @alice` (sanitised): one approver, named as `decided_by` is. */
function keyText(keyName: string, account: string): string {
  return `key "${sanitize(keyName)}" of ${sanitize(account)}`;
}

/** `key "ops2" of @alice`, `keys "ops1" and "ops2" of @alice`, or each with its account when they differ. */
export function approversText(approvals: readonly Approval[]): string {
  if (approvals.length === 0) return 'nobody yet';
  const accounts = new Set(approvals.map((a) => a.account));
  if (accounts.size > 1) return listed(approvals.map((a) => keyText(a.keyName, a.account)));
  const names = listed(approvals.map((a) => `"${sanitize(a.keyName)}"`));
  return `${approvals.length === 1 ? 'key' : 'keys'} ${names} of ${sanitize(approvals[0]!.account)}`;
}

function listed(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;
}

/** `1 of 2 approvals`. */
export function countText(q: Quorum): string {
  return `${q.approvals.length} of ${q.required} approval${q.required === 1 ? '' : 's'}`;
}

/** `2 of 2: keys "ops1" and "ops2" of @alice`, `0 of 2`: under a label that says approvals. */
export function soFarText(q: Quorum): string {
  return `${q.approvals.length} of ${q.required}${q.approvals.length ? `: ${approversText(q.approvals)}` : ''}`;
}

/** `1 of 2 approvals (key "ops2" of @alice)`, or `0 of 2 approvals`. */
export function progressText(q: Quorum): string {
  return q.approvals.length === 0 ? countText(q) : `${countText(q)} (${approversText(q.approvals)})`;
}

/** What is still missing: `waiting for another approver`, `waiting for 2 more approvers`. */
export function waitingText(q: Quorum): string {
  const left = Math.max(q.required - q.approvals.length, 0);
  if (left === 0) return 'the quorum is reached';
  return left === 1 ? 'waiting for another approver' : `waiting for ${left} more approvers`;
}
