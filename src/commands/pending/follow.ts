// Following a held transaction until a human decides (`pending wait`, and `transfer send --wait`
// with an agent's key): polls the resource with backoff on the injected clock, rides out
// transient failures (no connection, a timeout, 5xx, 429 after the client's own retries) until
// its time limit, and ends as the decision does. Approvals short of a quorum leave it pending: the
// wait goes on through them and says how far it is (`1 of 2 approvals (key "ops2" of @alice)`).
// docs/agents.md "Waiting for a human from a script": approved → the resource; rejected →
// `transaction_rejected` (exit 6); expired → `transaction_expired` (exit 5); out of time →
// `wait_timeout` (exit 7); Ctrl-C → 130.
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { NetworkBudget } from '../../api/budget.js';
import { unlessAborted } from '../../api/abortable.js';
import type { HeldResource } from '../../api/schemas.js';
import { ApiError, CliError } from '../../errors.js';
import { formatDuration } from '../../domain/duration.js';
import { MAX_WAIT_MS } from '../../runtime/flags.js';
import { sanitize } from '../../io/sanitize.js';
import { startSpinner, type Spinner } from '../../io/spinner.js';
import { decidedByText, fetchHeld } from '../../core/held.js';
import { countText, isQuorum, progressText, quorumOf, waitingText } from '../../core/quorum.js';
import { svc } from '../../domain/shell-command.js';

/** The first pause between two reads, and the longest: a human takes seconds to minutes. */
export const FIRST_POLL_MS = 500;
export const MAX_POLL_MS = 5_000;
/**
 * A service that still says `pending_approval` this long after `expires_at` by its own clock
 * (learnt from its Date header, to the second) has let it expire: nothing can approve it then
 * (the spec: approve after the window is `409 transaction_expired`).
 */
const EXPIRY_GRACE_MS = 5_000;

export interface FollowOptions {
  /** Gives up after this long (wait_timeout, exit 7); undefined: until decided or expired (at most 24 h). */
  timeoutMs?: number;
  /** Words for the spinner while it is pending (default: waiting for a decision on <id>). */
  waitingText?: string;
  /** The resource as just read by the caller: the first round uses it instead of reading it again. */
  known?: HeldResource;
  /**
   * Each read's network time is at most the time left (and READ_FLOOR_MS): a read started near the
   * end cannot carry the wait past its limit by a whole --timeout (svc mcp answers before a host's
   * request timeout).
   */
  boundReads?: boolean;
  /** Called after each round that found it still pending (or could not read it): the last state read, if any. */
  onPending?: (last: HeldResource | undefined) => void | Promise<void>;
}

/** The least network time a bounded read gets, however little of the wait is left. */
export const READ_FLOOR_MS = 2_000;

/** The command that follows it again, for hints. */
export const followCommand = (id: string) => svc`pending wait ${id}`;

export function rejectedError(h: HeldResource): CliError {
  const by = decidedByText(h);
  const when = h.decided_at ? ` at ${h.decided_at}` : '';
  const reason = h.reason ? `: "${h.reason}"` : '';
  // One reject ends it, whatever approvals came before (said, so no one waits for the rest).
  const q = quorumOf(h);
  const before = isQuorum(q) && q.approvals.length > 0 ? ` (after ${countText(q)}: one reject ends it)` : '';
  return new CliError('refused', 'transaction_rejected', `held transaction ${h.transaction_id} was rejected${by ? ` by ${by}` : ''}${when}${reason}${before}; nothing was sent`, {
    details: { transaction_id: h.transaction_id, status: 'rejected', ...(h.reason !== undefined ? { reason: h.reason } : {}) },
  });
}

export function expiredError(h: HeldResource): CliError {
  const q = quorumOf(h);
  const short = isQuorum(q) ? `with ${countText(q)}, short of its quorum` : 'without a decision';
  return new CliError('conflict', 'transaction_expired', `held transaction ${h.transaction_id} expired at ${h.expires_at} ${short}; nothing was sent`, {
    hint: 'nothing can approve it now; to pay it after all, send it again under a new `--idempotency-key` (it is held for a new approval)',
    details: { transaction_id: h.transaction_id, status: 'expired' },
  });
}

/** Failures worth waiting out: the service may answer again (a restart, a network blip). */
function transient(err: unknown): boolean {
  if (!(err instanceof CliError)) return false;
  if (err.kind === 'network') return true;
  return err instanceof ApiError && (err.status >= 500 || err.status === 429);
}

/**
 * Polls GET /v1/agents/transactions/{id} until it is decided. Returns the approved resource
 * (with its `transfer_id`); throws as the decision says otherwise. A spinner on stderr (animated
 * only on a terminal; quiet with --json) says what it waits for, and "reconnecting" while the
 * service cannot be reached.
 */
export async function waitForDecision(ctx: Needs<'clock' | 'env' | 'interrupt' | 'io' | 'json' | 'network' | 'serviceClock'>, client: ApiClient, id: string, opts: FollowOptions = {}): Promise<HeldResource> {
  const { clock } = ctx;
  const limit = opts.timeoutMs ?? MAX_WAIT_MS;
  const started = clock.now();
  const deadline = started + limit;
  const waiting = opts.waitingText ?? `waiting for a decision on held transaction ${id}`;
  // Ctrl-C is claimed from here: it stops the waiting (exit 130), not the held transaction.
  const interrupt = ctx.interrupt.signal();
  // Shown from the first read that finds it still pending: a decision already made, or a service
  // that cannot show it, is said in one line with nothing before it.
  let shown: Spinner | undefined;
  const spinner = () => (shown ??= startSpinner(ctx.io, `${waiting}${opts.timeoutMs !== undefined ? ` (up to ${formatDuration(limit)})` : ''}…`, { quiet: ctx.json, env: ctx.env }));
  let pause = FIRST_POLL_MS;
  let last: HeldResource | undefined;
  let outage: CliError | undefined;
  let known = opts.known;
  /** The quorum's progress as last said (a log gets a line each time it moves). */
  let saidState: string | undefined;
  try {
    for (;;) {
      // Each read has the whole --timeout (the wait is not network time), or, bounded, what is left
      // of the wait in a budget of its own (the shared one stays whole for a send running beside it).
      const budget = opts.boundReads ? new NetworkBudget(Math.min(ctx.network.timeoutMs(), Math.max(READ_FLOOR_MS, deadline - clock.now()))) : undefined;
      if (!budget) ctx.network.renew();
      let h: HeldResource | undefined = known;
      known = undefined;
      try {
        h ??= await unlessAborted(interrupt, fetchHeld(client, id, { signal: interrupt, what: `wait for a decision on ${id}`, ...(budget ? { budget } : {}) }));
      } catch (err) {
        if (interrupt.aborted || !transient(err)) throw err;
        if (!outage && !ctx.json) {
          // Said once per outage: on a terminal in the spinner's line, in a log as one line.
          const text = `${waiting}: reconnecting… (${(err as CliError).message})`;
          if (ctx.io.stderrIsTTY) spinner().update(text);
          else ctx.io.err(`${sanitize(text)}\n`);
        }
        outage = err as CliError;
      }
      if (h) {
        if (outage && !ctx.json) {
          if (ctx.io.stderrIsTTY) spinner().update(waiting);
          else ctx.io.err(`${sanitize(`${waiting}: reconnected`)}\n`);
        }
        outage = undefined;
        last = h;
        if (h.status === 'approved') return h;
        if (h.status === 'rejected') throw rejectedError(h);
        if (h.status === 'expired' || (h.status === 'pending_approval' && pastExpiry(ctx, h))) throw expiredError({ ...h, status: 'expired' });
        if (h.status !== 'pending_approval') {
          throw new CliError('failure', 'invalid_response', `the service says held transaction ${id} is "${h.status}", which svc does not know (pending_approval, approved, rejected or expired)`, {
            details: { transaction_id: id },
          });
        }
        const s = spinner();
        // Approvals short of a quorum leave it pending: said as they come (`1 of 2 approvals`).
        const q = quorumOf(h);
        const state = isQuorum(q) ? progressText(q) : h.status;
        if (ctx.io.stderrIsTTY) s.update(`${waiting}: ${state}, ${formatDuration(Math.round((clock.now() - started) / 1000) * 1000)}`);
        else if (isQuorum(q) && !ctx.json && state !== saidState) ctx.io.err(`${sanitize(`${waiting}: ${state}; ${waitingText(q)}`)}\n`);
        saidState = state;
      }
      await opts.onPending?.(last);
      const left = deadline - clock.now();
      if (left <= 0) throw timeoutError(id, limit, last, outage);
      // Soon after the window closes, so an expiry is reported when it happens.
      const untilExpiry = last ? Date.parse(last.expires_at) - ctx.serviceClock.now() + 1_000 : Infinity;
      await unlessAborted(interrupt, clock.sleep(Math.max(1, Math.min(pause, left, untilExpiry > 0 ? untilExpiry : pause))));
      pause = Math.min(pause * 2, MAX_POLL_MS);
    }
  } catch (err) {
    if (interrupt.aborted) {
      throw new CliError('interrupted', 'interrupted', `stopped waiting for held transaction ${id}: it still waits for a decision`, {
        hint: `follow it again with ${followCommand(id)}`,
        details: { transaction_id: id },
      });
    }
    throw err;
  } finally {
    shown?.stop();
  }
}

/** Pending, but past its window by the service's own clock (with a margin): it can no longer be approved. */
function pastExpiry(ctx: Needs<'serviceClock'>, h: HeldResource): boolean {
  const at = Date.parse(h.expires_at);
  return ctx.serviceClock.known && !Number.isNaN(at) && ctx.serviceClock.now() > at + EXPIRY_GRACE_MS;
}

function timeoutError(id: string, limitMs: number, last: HeldResource | undefined, outage: CliError | undefined): CliError {
  const q = quorumOf(last);
  const state = last ? `it is still ${last.status}${isQuorum(q) ? ` with ${countText(q)}` : ''} (the window closes at ${last.expires_at})` : 'its state could not be read';
  const why = outage ? `; the last read failed: ${outage.message}` : '';
  return new CliError('network', 'wait_timeout', `gave up waiting for held transaction ${id} after ${formatDuration(limitMs)}: ${state}${why}`, {
    hint: `a human may still decide; follow it with ${followCommand(id)}`,
    // The quorum's progress as last read, as the service gave it (a script sees how far it got).
    details: { transaction_id: id, ...(last?.approvals_required !== undefined ? { approvals_required: last.approvals_required } : {}), ...(last?.approvals !== undefined ? { approvals: last.approvals } : {}) },
  });
}
