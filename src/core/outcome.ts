// The errors that say svc cannot know what the service did, shared by every front end (`transfer
// send`, `transfer batch`, `svc mcp`): a request that may have reached the service and was then
// refused, a key first tried too long ago for the service to answer for it, or a record dated in
// the future. Each names the key and when it was first tried, and the command that finds out.
// svc never sends such a payment again by itself: the person decides. docs/idempotency.md.
import { CliError } from '../errors.js';
import type { Moment } from './ledger/fold.js';
import { SERVICE_KEY_MEMORY_MS } from '../domain/idempotency.js';
import { svc } from '../domain/shell-command.js';

/** The time to look from in `svc transfer ls --since`: the service's, when it was known. */
export function sinceOf(m: Moment): string {
  return m.svc_at ?? m.at;
}

/** Until when a rerun under the same key is still answered by the service (its 24 hours, less the margin). */
function retryUntil(m: Moment): string {
  return new Date(Date.parse(m.svc_at ?? m.at) + SERVICE_KEY_MEMORY_MS).toISOString();
}

export interface UnknownWhat {
  /** The idempotency key it went under. */
  key: string;
  /** What it is, for the message: "this transfer", "row 12". */
  what: string;
  /** What to do to pay it after all, when it is not there (a new key, a new ref). */
  payAgain: string;
  /** Ids to name (transfer_id ...), when known. */
  details?: Record<string, unknown>;
}

/**
 * A request under `key` may have reached the service (an earlier answer was lost) and the last
 * answer was a refusal: it may still have been made. Exit 5, nothing sent again by itself.
 */
export function refusedAfterUnknown(w: UnknownWhat, refusal: CliError, first: Moment): CliError {
  const since = sinceOf(first);
  return new CliError('conflict', 'idempotency_outcome_unknown', `${w.what} may have been made under idempotency key ${w.key}: a try of it reached the service without an answer, and the next was refused (${refusal.code}: ${refusal.message}); how it ended is not known, and it is not sent under another key`, {
    hint: `look for it with ${svc`transfer ls --since ${since}`}; the same command (same key) is answered by the service for what it made until ${retryUntil(first)}; if it is not there after that, ${w.payAgain}`,
    details: { ...w.details, idempotency_key: w.key, tried_at: since, refused_code: refusal.code },
  });
}

/** The key was first tried at `first`, how it ended is not known, and the service may have forgotten it. */
export function forgottenUnknown(w: UnknownWhat, first: Moment, future: boolean): CliError {
  const since = sinceOf(first);
  const why = future
    ? `which is later than now by a clock (this machine's or the service's has moved since): how it ended is not known`
    : 'how it ended is not known, and the service forgets keys after 24 hours';
  return new CliError('conflict', 'idempotency_outcome_unknown', `${w.what} was tried under idempotency key ${w.key} on ${since}, ${why}: not sent again, as it may have been made`, {
    hint: `look for it with ${svc`transfer ls --since ${since}`}; if it is not there, ${w.payAgain}`,
    details: { ...w.details, idempotency_key: w.key, tried_at: since },
  });
}
