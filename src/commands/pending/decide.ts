// `svc pending approve|reject <id>`: finds the transaction in the queue first, so the
// confirmation (live key) and the receipt say what was decided: agent, recipient, amount, memo,
// the rule that held it and the time left (docs/agents.md).
import type { Needs } from '../../runtime/factory.js';
import { REJECT_REASON_RULE, rejectReasonFits } from '../../domain/reject-reason.js';
import { ApiError, CliError, UsageError } from '../../errors.js';
import { printJson, printRecord, outputMode } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { checkTransactionId, fetchHeld } from '../../core/held.js';
import { countText, isQuorum, quorumOf, soFarText, type Quorum } from '../../core/quorum.js';
import type { HeldResource } from '../../api/schemas.js';
import { alreadyApprovedError, decidedText, partialText } from './elsewhere.js';
import { Decisions, type Decision, type DecisionAnswer } from '../../core/decision.js';
import { agentKeyError, approverNow, describeHeld, fetchQueue, heldDetails, heldSummary, line, ruleLookup, type HeldView } from './queue.js';
import { svc } from '../../domain/shell-command.js';

export type { Decision } from '../../core/decision.js';

/** The next step after an id that is not in the queue: the command that lists the ids. */
const QUEUE_HINT = '`svc pending ls` lists the transactions waiting for your decision';

/**
 * A reject's reason as given (--reason, or typed in review): trimmed; empty means none. Longer
 * than the service keeps (500 characters) is a usage error naming the field; nothing is sent.
 */
export function parseReason(text: string | undefined, field = '--reason'): string | undefined {
  if (text === undefined) return undefined;
  const reason = text.trim();
  if (reason === '') {
    if (field === '--reason') throw new UsageError(`--reason ${REJECT_REASON_RULE}: it is empty`, 'leave --reason out to reject without one');
    return undefined;
  }
  if (!rejectReasonFits(reason)) throw new UsageError(`${field} ${REJECT_REASON_RULE}: it has ${[...reason].length}`);
  return reason;
}

/** The receipt's first line (sanitised): what was decided, and the transfer an approval made. */
export function receipt(decision: Decision, id: string, view: HeldView | undefined, transferId: string | null | undefined): string {
  const what = view ? `${heldSummary(view)}, ` : '';
  return decision === 'approve'
    ? `approved ${sanitize(id)}: ${what}submitted as transfer ${sanitize(transferId ?? '(id not given)')}`
    : `rejected ${sanitize(id)}: ${what}discarded, no funds moved`;
}

/**
 * The live-key question before an approval (sanitised), restating what is sent; short, so it
 * fits a line of 80 columns with usual handles (the id and the details are shown above it).
 */
export function approveQuestion(view: HeldView): string {
  return `Approve ${heldSummary(view)} on a LIVE account?`;
}

export async function decide(ctx: Needs<'account' | 'auth' | 'client' | 'clock' | 'confirm' | 'env' | 'globals' | 'io' | 'json' | 'reader' | 'serviceClock'>, idText: string, decision: Decision, opts: { reason?: string } = {}): Promise<void> {
  const id = checkTransactionId(idText); // a shortened id is refused before the queue is read
  const reason = decision === 'reject' ? parseReason(opts.reason) : undefined;
  const shownId = sanitize(id);
  const live = (await ctx.auth()).environment === 'live';
  // What is being decided: the queue holds every transaction that can still be decided. With a
  // test key a queue that cannot be read only costs the description (the decision is sent).
  const queue = await fetchQueue(ctx).catch((err: unknown) => {
    if (live) throw err;
    return undefined;
  });
  const tx = queue?.items.find((t) => t.transaction_id === id);
  const view = tx ? await describeHeld(ctx, tx, ruleLookup(ctx)) : undefined;
  const serviceNow = () => approverNow(ctx);

  if (!view && live && decision === 'approve') {
    // Never approve on a live key what has not been shown: not in the queue, it is unknown,
    // already decided or expired, and would be refused anyway (404 / 409).
    throw (await agentKeyError(ctx)) ?? new CliError('not_found', 'transaction_not_found', `${shownId} is not in the approval queue of this account (unknown, already decided, or expired); nothing was sent`, {
      hint: `${QUEUE_HINT}; with a live key svc approves only what it has shown you`,
    });
  }
  if (live) {
    // The confirmation restates what is decided (the details first, when it will be asked).
    if (view && ctx.io.canPrompt && !ctx.globals.yes) {
      const title = decision === 'approve' ? `Approving ${shownId} (${whenSent(view.quorum)}):` : `Rejecting ${shownId}:`;
      ctx.io.err(`${[title, ...heldDetails(view, serviceNow()).map((l) => `  ${l}`)].join('\n')}\n`);
    }
    await ctx.confirm.live(view
      ? decision === 'approve'
        ? approveQuestion(view)
        : `Reject ${heldSummary(view)} on a LIVE account?`
      : `Reject ${shownId} on a LIVE account (not in your approval queue: its details cannot be shown)?`,
    `${decision === 'approve' ? 'Approving' : 'Rejecting'} ${shownId} on a LIVE account`);
  }
  // Not in the queue (test key, or a reject): the service's answer decides (404, 409 ...).
  const decisions = await Decisions.open(ctx);
  let data: DecisionAnswer;
  try {
    data = await decisions.decide({
      transaction_id: id, decision, via: decision === 'approve' ? 'pending approve' : 'pending reject',
      ...(view ? { agent: view.agent, to: view.to } : {}), ...(reason !== undefined ? { reason } : {}),
    });
  } catch (err) {
    // An id the service does not know (mistyped, or not this account's): where the right one is.
    if (err instanceof ApiError && err.status === 404 && err.code === 'transaction_not_found') throw err.with({ hint: QUEUE_HINT });
    // Refused because of what others (or this key) did before: read it again to say who and what.
    if (err instanceof ApiError && err.code === 'already_approved') throw alreadyApprovedError(err, id, await readHeld(ctx, id));
    if (err instanceof ApiError && err.code === 'transaction_already_decided') {
      const now = await readHeld(ctx, id);
      if (now && now.status !== 'pending_approval') throw err.with({ message: `${shownId} was already ${decidedText(now)}; nothing was sent now` });
    }
    if (err instanceof CliError && err.delivery === 'unknown' && err.code !== 'interrupted') {
      throw err.with({ hint: `whether it was ${decision === 'approve' ? 'approved' : 'rejected'} is not known (it may have been applied): ${svc`pending get ${id}`} shows its state; ${svc`pending log`} records it as unknown` });
    }
    throw err;
  } finally {
    decisions.close();
  }
  if (ctx.json) return printJson(ctx.io, data);
  const q = quorumOf(data);
  // An approval short of the quorum: counted, still pending, nothing sent (exit 0).
  const partial = decision === 'approve' && data.status === 'pending_approval';
  const lines = [partial ? partialReceipt(id, view, q) : receipt(decision, id, view, data.transfer_id)];
  if (!partial && decision === 'approve' && isQuorum(q)) lines.push(`  ${line('approvals', soFarText(q))}`);
  if (view?.memo !== undefined) lines.push(`  ${line('memo', view.memo)}`);
  if (view?.rule !== undefined) lines.push(`  ${line('held', view.rule)}`);
  if (reason !== undefined) lines.push(`  ${line('reason', reason)}`);
  if (!view) lines.push('  (it was not in the approval queue when looked up, so its amount is not shown)');
  ctx.io.err(`${lines.join('\n')}\n`);
  const counted = isQuorum(q) ? { approvals: q.approvals.length, approvals_required: q.required, approvals_text: countText(q) } : {};
  printRecord(ctx.io, outputMode(ctx.io, false), { transaction_id: data.transaction_id, status: data.status, transfer_id: data.transfer_id ?? undefined, ...counted }, [
    { key: 'transaction_id', header: 'Transaction' },
    { key: 'status', header: 'Status' },
    { key: 'transfer_id', header: 'Transfer' },
    { key: 'approvals_text', header: 'Approvals', only: 'table' },
    { key: 'approvals', header: 'Approvals', only: 'tsv' },
    { key: 'approvals_required', header: 'Approvals required', only: 'tsv' },
  ]);
}

/** When an approval sends the transfer: at once, or at the last approval of a quorum. */
function whenSent(q: Quorum | undefined): string {
  if (!isQuorum(q)) return 'the transfer is sent at once';
  const mine = q.approvals.length + 1;
  return mine >= q.required ? `approval ${mine} of ${q.required}: the transfer is sent at once` : `approval ${mine} of ${q.required}: the transfer is sent at the last one`;
}

/** The receipt of an approval short of the quorum (sanitised): counted, still pending, nothing sent. */
export function partialReceipt(id: string, view: HeldView | undefined, q: Quorum | undefined): string {
  const what = view ? `: ${heldSummary(view)}` : '';
  const progress = q ? partialText(q) : 'still pending: more approvals are needed';
  return `counted your approval of ${sanitize(id)}${what}; ${progress}; nothing is sent until then`;
}

/** The held transaction as it is now, or undefined when it cannot be read (only words depend on it). */
async function readHeld(ctx: Needs<'client'>, id: string): Promise<HeldResource | undefined> {
  try {
    return await fetchHeld(await ctx.client(), id);
  } catch {
    return undefined;
  }
}
