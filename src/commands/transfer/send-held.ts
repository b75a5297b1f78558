// `transfer send --wait` with an agent's key whose transfer is held for approval: says so, waits
// for the human's decision (pending/follow.ts), then for the transfer the approval made to settle.
// Exit 0 only when the money moved; rejected 6, expired 5, out of time 7, as `pending wait`.
// Every failure after the service accepted the held transaction names it and its idempotency key
// (accepted.ts). docs/agents.md "Waiting for a human from a script".
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { TransferSchema, type HeldResource, type Transfer } from '../../api/schemas.js';
import { CliError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';
import { waitForDecision } from '../pending/follow.js';
import { approvedLine } from '../pending/elsewhere.js';
import { isQuorum, quorumOf } from '../../core/quorum.js';
import { acceptedError } from './accepted.js';
import { transferPath } from './id.js';
import { DEFAULT_WAIT_MS } from './wait.js';
import { placeholder, svc } from '../../domain/shell-command.js';

/** What --wait asked for: `ms` bounds the whole wait when it was given (`explicit`). */
export interface WaitPlan {
  ms: number;
  explicit: boolean;
}

export interface HeldToFollow {
  transactionId: string;
  expiresAt?: string;
  /** The idempotency key it was accepted under. */
  key: string;
  /** When an earlier run sent it (a rerun under the same key: not sent again). */
  earlierAt?: string;
  /** The resource as just read (a rerun learns it first): the wait does not read it again at once. */
  known?: HeldResource;
  /** How many approvals by distinct owner keys it needs, when the service said and it is more than one. */
  approvalsRequired?: number;
}

/** `{ approvalsRequired }` from the 202 of a held transfer, when it needs more than one approval. */
export function quorumOfHeld(answer: unknown): { approvalsRequired?: number } {
  const q = quorumOf(answer);
  return isQuorum(q) ? { approvalsRequired: q.required } : {};
}

/** Waits for the transfer the approval made (send's own --wait), with the time left. */
export type Settle = (transfer: Transfer, waitMs: number) => Promise<void>;

export async function followHeld(ctx: Needs<'clock' | 'env' | 'interrupt' | 'io' | 'json' | 'network' | 'serviceClock'>, client: ApiClient, h: HeldToFollow, wait: WaitPlan, settle: Settle): Promise<void> {
  const id = h.transactionId;
  const accepted = { key: h.key, transactionId: id, ...(h.earlierAt ? { earlierAt: h.earlierAt } : {}) };
  if (!ctx.json) {
    const until = h.expiresAt ? ` until ${h.expiresAt}` : '';
    const who = h.approvalsRequired ? `${h.approvalsRequired} people of the owner's account (each with their own key) to approve it` : 'a human to approve it';
    ctx.io.err(`${sanitize(`held for approval: ${id} is above the agent's approval threshold and waits for ${who}${until} (the account owner runs ${svc`pending approve ${id}`}); accepted under idempotency key ${h.key}`)}\n`);
  }
  const started = ctx.clock.now();
  let approved;
  try {
    approved = await waitForDecision(ctx, client, id, {
      ...(wait.explicit ? { timeoutMs: wait.ms } : {}),
      waitingText: `waiting for a human to approve ${id}`,
      ...(h.known ? { known: h.known } : {}),
    });
  } catch (err) {
    throw acceptedError(withSendHint(err, id, h.expiresAt), accepted);
  }
  const transferId = approved.transfer_id;
  if (transferId === undefined) {
    throw acceptedError(new CliError('failure', 'invalid_response', `the service says ${id} was approved but names no transfer_id`, {
      hint: 'find the transfer it made with `svc transfer ls`',
    }), accepted);
  }
  if (!ctx.json) ctx.io.err(`${approvedLine(id, approved)}\n`);
  // What is left of an explicit --timeout-wait, else the usual wait for a transfer to settle.
  const left = wait.explicit ? Math.max(1, started + wait.ms - ctx.clock.now()) : DEFAULT_WAIT_MS;
  try {
    const { data } = await client.get(transferPath(transferId), { schema: TransferSchema });
    await settle(data, left);
  } catch (err) {
    throw acceptedError(err, { key: h.key, transferId, ...(h.earlierAt ? { earlierAt: h.earlierAt } : {}) });
  }
}

/** A service that cannot show held transactions: what the sender can still do. */
function withSendHint(err: unknown, id: string, expiresAt: string | undefined): unknown {
  if (!(err instanceof CliError) || err.code !== 'unsupported_by_service') return err;
  return err.with({
    hint: `it stays held for approval${expiresAt ? ` until ${expiresAt}` : ''}: the account owner can approve it with ${svc`--profile ${placeholder('owner-profile')} pending approve ${id}`}; the transfer it makes then shows in ${svc`transfer ls`}`,
  });
}
