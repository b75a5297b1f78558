// `svc pending ls`: the approval queue, soonest to expire first, with the approvals so far where a
// transaction needs more than one (docs/approvals.md "Two-person approval").
import type { Needs } from '../../runtime/factory.js';
import { addressCell, addressDisplay, type ShowAddress } from '../../io/addresses.js';
import { addressColumn, idColumn, textColumn, timeColumn } from '../../io/columns.js';
import { outputMode, printList, type Column } from '../../io/render.js';
import { approverNow, describeHeld, EMPTY_QUEUE, fetchApproverQueue, heldTimeLeft, openHeld } from './queue.js';
import { isQuorum, quorumOf, type Quorum } from '../../core/quorum.js';

export async function listPending(ctx: Needs<'account' | 'client' | 'io' | 'json' | 'reader' | 'serviceClock'>, opts: { decrypt?: boolean } = {}): Promise<void> {
  // An agent's key is told why it has no queue (exit 3), whatever the output mode.
  const { items } = await fetchApproverQueue(ctx);
  const mode = outputMode(ctx.io, ctx.json);
  const serviceNow = approverNow(ctx);
  const rows: Record<string, unknown>[] = [];
  for (const tx of items) {
    if (mode === 'json') {
      // The service's objects; --decrypt adds amount and memo where they open here (docs/json.md).
      const opened = opts.decrypt ? await openHeld(ctx, tx) : undefined;
      rows.push({ ...tx, ...(opened?.amount !== undefined ? { amount: opened.amount } : {}), ...(opened?.memo !== undefined ? { memo: opened.memo } : {}) });
      continue;
    }
    // The same description as approve and review show (the renderer sanitises every value).
    const view = await describeHeld(ctx, tx);
    const { approvals: _list, approvals_required: _required, ...fields } = tx;
    rows.push({ ...fields, amount: view.amount, memo: view.memo ?? '', time_left: heldTimeLeft(view, serviceNow), ...approvalCells(view.quorum) });
  }
  const show = await addressDisplay(mode);
  // The approvals columns only when a transaction needs more than one (a quorum): otherwise the
  // queue reads as it always has.
  const quorum = mode !== 'json' && items.some((tx) => isQuorum(quorumOf(tx)));
  printList(ctx.io, mode, rows, pendingColumns(show, () => serviceNow, quorum), EMPTY_QUEUE);
}

/** `1 of 2: ops2` (key names: the approvers are the owner's keys) for a table; counts and names for TSV. */
function approvalCells(q: Quorum | undefined): Record<string, unknown> {
  if (!isQuorum(q)) return {};
  const names = q.approvals.map((a) => a.keyName).join(', ');
  return {
    approvals_text: `${q.approvals.length} of ${q.required}${names ? `: ${names}` : ''}`,
    approvals: q.approvals.length,
    approvals_required: q.required,
    approved_by: names,
  };
}

/** Columns of `svc pending ls`: the id whole, to paste into `pending approve` (docs/ux.md, Ids). */
export function pendingColumns(show: ShowAddress, now: () => number, quorum = false): Column[] {
  return [
    idColumn('transaction_id', 'ID'),
    addressColumn('agent', 'AGENT'),
    addressColumn('to', 'TO', { format: addressCell(show) }),
    { key: 'amount', header: 'AMOUNT', align: 'right', amount: true },
    textColumn('memo', 'MEMO', { drop: 3, min: 20 }), // what the approver reads: cut late
    ...(quorum ? [textColumn('approvals_text', 'APPROVALS', { only: 'table', min: 6 })] : []),
    timeColumn('requested_at', 'REQUESTED', now, { drop: 2 }),
    timeColumn('expires_at', 'EXPIRES', now, { drop: 1 }), // the time left says it too
    { key: 'time_left', header: 'TIME LEFT' },
    ...(quorum
      ? [
        { key: 'approvals', header: 'APPROVALS', only: 'tsv' as const },
        { key: 'approvals_required', header: 'APPROVALS REQUIRED', only: 'tsv' as const },
        { key: 'approved_by', header: 'APPROVED BY', only: 'tsv' as const },
      ]
      : []),
  ];
}
