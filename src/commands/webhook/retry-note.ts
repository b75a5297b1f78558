// What the service does after `webhook listen` answered a delivery with a failure: the retry
// schedule of DESIGN.md ("Webhook retries"; the sandbox's schedule.ts is its one definition),
// read from the attempt that failed (X-Service-Delivery-Attempt). Nominal times: the service adds
// ±20 % jitter, so a person is told "~5s".
import { formatDuration } from '../../domain/duration.js';
import { MAX_ATTEMPTS, MIN_BACKOFF_AFTER_TIMEOUT_MS, RETRY_DELAYS_MS, RETRY_WINDOW_MS } from '../../sandbox/webhooks/schedule.js';

export type RetryNote =
  /** Attempt `attempt` comes about `inMs` after this one failed. */
  | { attempt: number; inMs: number }
  /** Attempt `attempt` is the last, 24 h after the first. */
  | { attempt: number; last: true }
  /** That was the last attempt. */
  | { exhausted: true };

/**
 * After attempt `attempt` failed: what comes next. `slow` is a failure the service waits at
 * least a minute after (a timeout, or an answer with Retry-After), `retryAfterMs` what the
 * answer's Retry-After asked for.
 */
export function retryNote(attempt: number, slow: { retryAfterMs?: number | undefined; timedOut?: boolean } = {}): RetryNote {
  if (attempt >= MAX_ATTEMPTS) return { exhausted: true };
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return { attempt: attempt + 1, last: true };
  const floor = slow.timedOut || slow.retryAfterMs !== undefined ? Math.max(MIN_BACKOFF_AFTER_TIMEOUT_MS, slow.retryAfterMs ?? 0) : 0;
  return { attempt: attempt + 1, inMs: Math.max(base, floor) };
}

/** For a person: `the service retries in ~5s (attempt 2)`; `replay` is the command that sends it again. */
export function retryWords(note: RetryNote, replay: string | undefined): string {
  if ('inMs' in note) return `the service retries in ~${formatDuration(note.inMs)} (attempt ${note.attempt})`;
  if ('last' in note) return `the service's last attempt (${note.attempt}) comes ${RETRY_WINDOW_MS / 3_600_000}h after the first`;
  return `that was the last attempt${replay ? `: ${replay} sends it again` : ''}`;
}

/** For a program: `next_attempt` (`{"attempt":2,"in_ms":5000}`, `{"attempt":8,"last":true}`), or `retries_exhausted`. */
export function retryJson(note: RetryNote): Record<string, unknown> {
  if ('exhausted' in note) return { retries_exhausted: true };
  return { next_attempt: 'inMs' in note ? { attempt: note.attempt, in_ms: note.inMs } : { attempt: note.attempt, last: true } };
}
