// wait_for_decision: follows a held transaction (pending/follow.ts) until a human decides, it
// expires, or the call's time runs out, and answers the state reached as a result either way.
// The default wait (45 s) ends before the 60 s request timeout of the MCP SDK's client and of
// the hosts built on it, each read bounded by the time left; progress notifications keep hosts
// that reset their timeout on progress informed (wait-progress.ts). A still-pending result names
// the call to make again. As a task (tasks.ts) the same wait runs until the decision or expiry.
import type { HeldResource } from '../../api/schemas.js';
import { checkTransactionId } from '../../core/held.js';
import { countText, isQuorum, progressText, quorumOf, waitingText, type Quorum } from '../../core/quorum.js';
import { CliError } from '../../errors.js';
import { waitForDecision } from '../pending/follow.js';
import { argsOf, integer, requiredText } from './args.js';
import { heldView, type ReadCtx } from './reads.js';
import { ok, type Outcome } from './results.js';
import { heldNext } from './send.js';
import { awaitingText, progressReporter, type Progress } from './wait-progress.js';

/** The longest one wait_for_decision call waits (a host must reset its timeout on progress past ~50 s). */
export const MAX_WAIT_S = 300;
/** Clearly under the 60 s request timeout of the SDK's client (DEFAULT_REQUEST_TIMEOUT_MSEC) and of Claude Code. */
export const DEFAULT_WAIT_S = 45;

/** The transaction id and the call's wait in seconds, checked. */
export function waitArgs(raw: unknown): { id: string; seconds: number } {
  const args = argsOf(raw, ['transaction_id', 'timeout_seconds']);
  const id = checkTransactionId(requiredText(args, 'transaction_id'));
  return { id, seconds: integer(args, 'timeout_seconds', 1, MAX_WAIT_S, DEFAULT_WAIT_S) };
}

/** The decision, or the state reached when the call's time ran out: a result, not an error, either way. */
export async function waitForDecisionTool(ctx: ReadCtx, raw: unknown, notify?: (p: Progress) => Promise<void>): Promise<Outcome> {
  const { id, seconds } = waitArgs(raw);
  const report = progressReporter(ctx, { ...(notify ? { notify } : {}), totalSeconds: seconds });
  return decisionOutcome(ctx, id, { timeoutMs: seconds * 1000, onPending: report });
}

export interface DecisionWait {
  timeoutMs: number;
  /** The resource as just read: the first round uses it. */
  known?: HeldResource;
  onPending?: (last: HeldResource | undefined) => Promise<void>;
}

/** Waits for the decision on `id` and says it as wait_for_decision's result. */
export async function decisionOutcome(ctx: ReadCtx, id: string, opts: DecisionWait): Promise<Outcome> {
  const ids = { transaction: id };
  const started = ctx.clock.now();
  let last = opts.known;
  const onPending = async (h: HeldResource | undefined) => {
    last = h ?? last;
    await opts.onPending?.(h);
  };
  try {
    const held = await waitForDecision(ctx, await ctx.client(), id, { timeoutMs: opts.timeoutMs, boundReads: true, onPending, ...(opts.known ? { known: opts.known } : {}) });
    const data = { ...(await heldView(ctx, held)), status: 'approved' };
    return ok(data, `approved: held transaction ${id} was submitted as transfer ${held.transfer_id ?? '(id not given)'}`, { outcome: 'approved', ids: { ...ids, transfer: held.transfer_id } });
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    if (err.code === 'transaction_rejected') {
      const reason = typeof err.details.reason === 'string' ? err.details.reason : undefined;
      return ok({ status: 'rejected', transaction_id: id, ...(reason !== undefined ? { reason } : {}), next: 'A human rejected this transfer: nothing was sent. Tell the user; do not send it again.' },
        `rejected: held transaction ${id}; nothing was sent`, { outcome: 'rejected', ids, others: ['reason'] });
    }
    if (err.code === 'transaction_expired') {
      return ok({ status: 'expired', transaction_id: id, next: 'Nobody decided in time: nothing was sent. Tell the user; sending it again needs a new idempotency key and a new approval.' },
        `expired: held transaction ${id}; nothing was sent`, { outcome: 'expired', ids });
    }
    if (err.code === 'wait_timeout') return pendingOutcome(ctx, id, Math.round(opts.timeoutMs / 1000), Math.round((ctx.clock.now() - started) / 1000), err, last);
    throw err;
  }
}

/** What a quorum still needs, for the model: people, each with their own key; the agent never counts. */
function quorumNext(q: Quorum): string {
  return `It needs ${q.required} approvals by distinct people of the owner's account (${countText(q)} so far): ${waitingText(q)}. The agent cannot approve; call wait_for_decision again.`;
}

/** Still pending when the call's time ran out: how far it is, when it expires, and the exact call to make again. */
function pendingOutcome(ctx: ReadCtx, id: string, seconds: number, waited: number, err: CliError, last: HeldResource | undefined): Outcome {
  // Approvals short of a quorum: how far it is, so the model can tell the user who is missing.
  const q = quorumOf(err.details);
  const progress = isQuorum(q) ? { approvals_required: q.required, approvals: err.details.approvals } : {};
  const sofar = isQuorum(q) ? ` with ${progressText(q)}; ${waitingText(q)}` : '';
  const again = { tool: 'wait_for_decision', arguments: { transaction_id: id } };
  const state = last ? ` Nobody has decided yet (${awaitingText(ctx, last)}, at ${last.expires_at}).` : '';
  const next = `${heldNext(id)}${state} To keep waiting, call wait_for_decision again with ${JSON.stringify(again.arguments)}.${isQuorum(q) ? ` ${quorumNext(q)}` : ''}`;
  return ok({ status: 'pending_approval', transaction_id: id, ...(last ? { expires_at: last.expires_at } : {}), waited_seconds: waited, ...progress, next, next_call: again },
    `still pending_approval after ${seconds}s: held transaction ${id}${sofar}${last ? ` (the hold expires at ${last.expires_at})` : ''}. To keep waiting, call wait_for_decision again with the same transaction_id.`, { outcome: 'pending', ids: { transaction: id } });
}
