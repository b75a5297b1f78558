// The transaction on the review screen, kept true while its prompt is up (docs/approvals.md
// "Two-person approval"): after each read of the queue, its approvals so far (the queue's item
// carries them) or, once it has left the queue with its window still open, what became of it (GET
// the held transaction: who decided, and what). And the last look before a decision is sent: a
// transaction decided elsewhere is not sent at all.
import type { Needs } from '../../runtime/factory.js';
import type { HeldResource } from '../../api/schemas.js';
import { ApiError } from '../../errors.js';
import { decidedByText, fetchHeld } from '../../core/held.js';
import { quorumOf, type Quorum } from '../../core/quorum.js';
import { sanitize } from '../../io/sanitize.js';
import { approverNow, type HeldView, type Queue } from './queue.js';
import { NOT_FOUND } from './elsewhere.js';

export interface OnScreen {
  view: HeldView;
  /** What it became, once it is no longer pending (decided elsewhere). */
  ended?: HeldResource;
}

/** A transaction the service no longer knows (404): no longer pending, nothing more to say. */
const UNKNOWN_END = (id: string): HeldResource => ({ transaction_id: id, status: NOT_FOUND, agent: '', to: '', requested_at: '', expires_at: '' });

/**
 * Its state now, for the words and the last look; undefined when it cannot be read (a fault, a
 * service without the route): the service's own answer to the decision then decides.
 */
export async function stateNow(ctx: Needs<'client'>, id: string): Promise<HeldResource | undefined> {
  try {
    return await fetchHeld(await ctx.client(), id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && err.code === 'transaction_not_found') return UNKNOWN_END(id);
    return undefined;
  }
}

const sameQuorum = (a: Quorum | undefined, b: Quorum | undefined) =>
  a?.required === b?.required && a?.approvals.map((x) => `${x.keyName}\u0000${x.account}`).join('\u0001') === b?.approvals.map((x) => `${x.keyName}\u0000${x.account}`).join('\u0001');

/**
 * Brings `state` up to date with the queue just read; true when what the screen shows changed.
 * An expired one is left to the prompt (it counts down by the service's clock itself).
 */
export async function followOnScreen(ctx: Needs<'client' | 'serviceClock'>, queue: Queue, state: OnScreen): Promise<boolean> {
  if (state.ended) return false;
  const id = state.view.id;
  const item = queue.items.find((tx) => tx.transaction_id === id);
  let quorum: Quorum | undefined;
  if (item) {
    quorum = quorumOf(item);
  } else {
    if (state.view.expiresAtMs <= approverNow(ctx)) return false;
    const now = await stateNow(ctx, id);
    if (!now) return false;
    if (now.status !== 'pending_approval') {
      state.ended = now;
      return true;
    }
    quorum = quorumOf(now);
  }
  if (quorum === undefined || sameQuorum(quorum, state.view.quorum)) return false;
  state.view = { ...state.view, quorum };
  return true;
}

/** The prompt's closing words (sanitised): `approved elsewhere by key "ops2" of @alice`. */
export function endedWords(h: HeldResource): string {
  const by = decidedByText(h);
  switch (h.status) {
    case 'approved':
    case 'rejected':
      return sanitize(`${h.status} elsewhere${by ? ` by ${by}` : ''}`);
    case 'expired':
      return 'expired';
    default:
      return 'no longer pending';
  }
}
