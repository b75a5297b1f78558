// How one held transaction (the resource: held.ts) is shown by `pending get`, `pending wait` and
// the history: its fields as a record or a row, the amount and memo decrypted locally where the
// profile's decryption key opens them (the owner's, or the agent's own), and the words for who
// decided, who approved so far (where more than one approval is needed) and what held it. JSON
// stays the service's object (`--decrypt` adds amount and memo).
import type { Needs } from '../../runtime/factory.js';
import type { HeldResource } from '../../api/schemas.js';
import { addressCell, type ShowAddress } from '../../io/addresses.js';
import { colourStatus, type Palette } from '../../io/colors.js';
import { addressColumn, amountColumn, idColumn, timeColumn } from '../../io/columns.js';
import type { Column, OutputMode } from '../../io/render.js';
import { assetOf, openHeld, UNKNOWN_RULE, type OpenedHeld } from './queue.js';
import { decidedByText } from '../../core/held.js';
import { approversText, isQuorum, quorumOf, soFarText } from '../../core/quorum.js';

/** What held it, in the queue's words: `above the approval threshold (hitl_threshold_usdc 50)`. */
export function ruleText(h: HeldResource): string | undefined {
  if (h.rule === undefined) return undefined;
  if (h.rule !== 'hitl_threshold') return h.rule;
  const t = h.hitl_threshold_usdc;
  // A JSON number: policy limits have at most 6 decimals, so this is its plain decimal text.
  return t === undefined || !Number.isFinite(t) || /e/i.test(String(t)) ? UNKNOWN_RULE : `above the approval threshold (hitl_threshold_usdc ${String(t)})`;
}

export type Opener = (h: HeldResource) => Promise<OpenedHeld>;

/** Opens amounts and memos with this profile's key; the key is loaded only when one carries a ciphertext. */
export function heldOpener(ctx: Needs<'reader'>): Opener {
  return (h) => openHeld(ctx, h);
}

/**
 * The row a renderer gets. Table and TSV carry `amount` (decrypted here, or `encrypted`), the
 * memo when there is one, the rule and who decided in words (table) or fields (TSV). JSON is
 * the service's object; `decrypt` adds `amount` and `memo` where they open here.
 */
export function heldRow(h: HeldResource, opened: OpenedHeld, mode: OutputMode, decrypt: boolean): Record<string, unknown> {
  if (mode === 'json') {
    if (!decrypt) return h;
    return { ...h, ...(opened.amount !== undefined ? { amount: opened.amount } : {}), ...(opened.memo !== undefined ? { memo: opened.memo } : {}) };
  }
  const row: Record<string, unknown> = { ...h, asset: assetOf(h), amount: opened.amount ?? 'encrypted' };
  // A decided one is shown by its decision (Decided, Decided by), never by a window that no
  // longer counts down: an expired one says when it expired (docs/ux.md "Words").
  if (mode === 'table' && h.status !== 'pending_approval') {
    if (h.status === 'expired') row.expired_at = h.expires_at;
    delete row.expires_at;
  }
  if (opened.hasMemo) row.memo = opened.memo ?? 'encrypted';
  const held = ruleText(h);
  if (held !== undefined) row.held = held;
  const by = decidedByText(h);
  if (by !== undefined) row.decided_by_text = by;
  if (h.decided_by) {
    row.decided_by_key = h.decided_by.key_name;
    row.decided_by_account = h.decided_by.account;
  }
  delete row.decided_by;
  // The quorum's progress, where more than one approval is needed: counts in TSV, words in a table.
  delete row.approvals;
  delete row.approvals_required;
  const q = quorumOf(h);
  if (isQuorum(q)) {
    row.approvals = q.approvals.length;
    row.approvals_required = q.required;
    row.approvals_text = soFarText(q);
    row.approvals_short = `${q.approvals.length}/${q.required}`;
    if (q.approvals.length) row.approved_by = approversText(q.approvals);
  }
  return row;
}

/** The fields of one held transaction (`pending get`, `pending wait`). */
export function heldFields(p: Palette, now: () => number, show: ShowAddress): Column[] {
  return [
    { key: 'transaction_id', header: 'Transaction ID' },
    { key: 'status', header: 'Status', format: (v) => colourStatus(p, v) },
    { key: 'agent', header: 'Agent' },
    { key: 'to', header: 'To', format: addressCell(show) },
    amountColumn('amount', 'Amount', 'asset'),
    { key: 'asset', header: 'Asset', only: 'tsv' },
    { key: 'memo', header: 'Memo' },
    { key: 'held', header: 'Held', only: 'table' },
    { key: 'rule', header: 'Rule', only: 'tsv' },
    { key: 'hitl_threshold_usdc', header: 'Threshold', only: 'tsv' },
    { key: 'approvals_text', header: 'Approvals', only: 'table' },
    { key: 'approvals', header: 'Approvals', only: 'tsv' },
    { key: 'approvals_required', header: 'Approvals required', only: 'tsv' },
    { key: 'approved_by', header: 'Approved by', only: 'tsv' },
    timeColumn('requested_at', 'Requested', now),
    timeColumn('expires_at', 'Expires', now),
    timeColumn('expired_at', 'Expired', now, { only: 'table' }),
    timeColumn('decided_at', 'Decided', now),
    { key: 'decided_by_text', header: 'Decided by', only: 'table' },
    { key: 'decided_by_key', header: 'Decided by key', only: 'tsv' },
    { key: 'decided_by_account', header: 'Decided by account', only: 'tsv' },
    { key: 'reason', header: 'Reason' },
    { key: 'transfer_id', header: 'Transfer ID' },
  ];
}

/** The columns of the history (`pending ls --all`); TSV uses the keys as its header. */
export function heldColumns(p: Palette, now: () => number, show: ShowAddress): Column[] {
  return [
    idColumn('transaction_id', 'ID'),
    { key: 'status', header: 'STATUS', format: (v) => colourStatus(p, v) },
    addressColumn('agent', 'AGENT', { drop: 3 }),
    addressColumn('to', 'TO', { format: addressCell(show) }),
    { key: 'asset', header: 'ASSET', only: 'tsv' },
    amountColumn('amount', 'AMOUNT', 'asset'),
    timeColumn('requested_at', 'REQUESTED', now, { drop: 2 }),
    { key: 'expires_at', header: 'EXPIRES', only: 'tsv' },
    timeColumn('decided_at', 'DECIDED', now, { drop: 5 }),
    { key: 'decided_by_text', header: 'DECIDED BY', only: 'table', drop: 1 },
    { key: 'approvals_short', header: 'APPROVALS', only: 'table', drop: 6 },
    { key: 'approvals', header: 'APPROVALS', only: 'tsv' },
    { key: 'approvals_required', header: 'APPROVALS REQUIRED', only: 'tsv' },
    { key: 'decided_by_key', header: 'DECIDED BY KEY', only: 'tsv' },
    { key: 'decided_by_account', header: 'DECIDED BY ACCOUNT', only: 'tsv' },
    idColumn('transfer_id', 'TRANSFER', { format: (v) => (typeof v === 'string' && v ? v : '-'), drop: 4 }),
    { key: 'reason', header: 'REASON', only: 'tsv' },
  ];
}
