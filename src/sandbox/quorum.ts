// How a held transaction shows its quorum (beyond the spec: DESIGN.md "Quorum"), the same in the
// resource, the pending list, the 202 of a held transfer and the agent events' webhook payloads.
import type { HeldTransaction } from './records.js';
import { isoTime } from './iso-time.js';

/**
 * How many distinct owner keys it needs, fixed when it was held, and who approved so far, oldest
 * first (newest last). Always present: an empty list is not "unset". One held before quorums
 * existed needed one; if approved, its decision is its one approval.
 */
export function quorumFields(h: HeldTransaction): { approvals_required: number; approvals: Array<{ key_name: string; account: string; at: string }> } {
  const approvals = h.approvals ?? (h.status === 'approved' && h.decided_by && h.decided_at !== null ? [{ ...h.decided_by, at: h.decided_at }] : []);
  return {
    approvals_required: h.approvals_required ?? 1,
    approvals: approvals.map((a) => ({ key_name: a.key_name, account: a.account, at: isoTime(a.at) })),
  };
}
