// What the other approvers did, in words an approver can act on (docs/approvals.md "Two-person
// approval"): a transaction decided elsewhere says who and what (`approved by key "ops2" of
// @alice: submitted as transfer tr_…`), a partial approval says how far it is (`1 of 2
// approvals (yours); waiting for another approver`), and a second approval by the same key says
// that it counts once. Everything returned is sanitised (key names, reasons: text of others).
import type { HeldResource } from '../../api/schemas.js';
import { ApiError } from '../../errors.js';
import { decidedByText } from '../../core/held.js';
import { sanitize } from '../../io/sanitize.js';
import { approversText, countText, isQuorum, progressText, quorumOf, waitingText, type Quorum } from '../../core/quorum.js';
import { svc, placeholder } from '../../domain/shell-command.js';

/** The status svc gives a transaction the service answered 404 for while it was on screen. */
export const NOT_FOUND = 'not_found';

/** `key "ops2" of @alice` (sanitised), or undefined when the service did not say. */
function byText(h: HeldResource): string | undefined {
  const by = decidedByText(h);
  return by === undefined ? undefined : sanitize(by);
}

/** ` (2 of 2 approvals: keys "ops1" and "ops2" of @alice)` where a quorum was needed, else ''. */
function quorumSuffix(q: Quorum | undefined): string {
  return isQuorum(q) ? ` (${countText(q)}: ${approversText(q.approvals)})` : '';
}

/**
 * Who and what, once it is no longer pending (sanitised): `approved by key "ops2" of @alice:
 * submitted as transfer tr_…`, `rejected by key "ops2" of @alice ("wrong vendor"): discarded, no
 * funds moved`, `expired: its approval window closed (1 of 2 approvals)`.
 */
export function decidedText(h: HeldResource): string {
  const q = quorumOf(h);
  const by = byText(h);
  switch (h.status) {
    case 'approved':
      return `approved${by ? ` by ${by}` : ''}${quorumSuffix(q)}: submitted as transfer ${sanitize(h.transfer_id ?? '(id not given)')}`;
    case 'rejected':
      return `rejected${by ? ` by ${by}` : ''}${h.reason !== undefined ? ` ("${sanitize(h.reason)}")` : ''}: discarded, no funds moved`;
    case 'expired':
      return `expired: its approval window closed${isQuorum(q) ? ` with ${countText(q)}` : ''}, nothing was sent`;
    case NOT_FOUND:
      return 'the service no longer knows it (404); nothing was sent from here';
    default:
      return `now "${sanitize(h.status)}"`;
  }
}

/**
 * What a waiting agent prints once it is approved (sanitised): `approved txn_… by key "ops2" of
 * @alice (2 of 2 approvals: keys "ops1" and "ops2" of @alice): submitted as transfer tr_…`.
 */
export function approvedLine(id: string, h: HeldResource): string {
  const by = byText(h);
  return `approved ${sanitize(id)}${by ? ` by ${by}` : ''}${quorumSuffix(quorumOf(h))}: submitted as transfer ${sanitize(h.transfer_id ?? '(id not given)')}`;
}

/** `1 of 2 approvals (yours); waiting for another approver`: an approval of ours that did not complete the quorum. */
export function partialText(q: Quorum): string {
  // The answer is the state just after this approval: it is the newest.
  const others = q.approvals.slice(0, -1);
  return `${countText(q)} (yours${others.length ? ` and ${approversText(others)}` : ''}); ${waitingText(q)}`;
}

/** The state of a pending one on the review screen: `1 of 2 so far: key "ops2" of @alice`, `0 of 2 so far`. */
export function approvalsLine(q: Quorum): string {
  return `${q.approvals.length} of ${q.required} so far${q.approvals.length ? `: ${approversText(q.approvals)}` : ''}`;
}

/**
 * A second approval by the same key (409 already_approved, exit 5): who "you" are and how far it
 * is. The key is named by the service's error (`key_name`), or, with one approval so far, by that
 * one (the service said it is this key's). `held` is the transaction as read after the refusal.
 */
export function alreadyApprovedError(err: ApiError, id: string, held: HeldResource | undefined): ApiError {
  const q = held ? quorumOf(held) : undefined;
  const named = typeof err.details.key_name === 'string' ? err.details.key_name : q?.approvals.length === 1 ? q.approvals[0]!.keyName : undefined;
  const you = named !== undefined ? `you (key "${sanitize(named)}")` : 'you (this key)';
  const state = held?.status === 'pending_approval' && q
    ? `${progressText(q)}; ${waitingText(q)}`
    : held ? decidedText(held) : 'an approver counts once';
  return err.with({
    message: `${you} already approved ${sanitize(id)}: each key counts once; ${state}`,
    hint: `another approver approves it with their own key: ${svc`--profile ${placeholder('their-profile')} pending approve ${id}`}; ${svc`pending get ${id}`} shows who approved`,
  });
}
