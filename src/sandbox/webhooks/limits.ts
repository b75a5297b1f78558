// Delivery limits (docs/webhooks.md, "Delivery limits"; beyond the spec), as pure functions the
// engine feeds sandbox-clock instants: what a subscription has pending is capped (a new delivery
// beyond the cap ends the oldest as `exhausted`), and a subscription whose every attempt failed
// for 24 h is disabled until it is created again. Without them a receiver that is gone for good
// costs the sandbox memory and disk in proportion to the events, for ever.
import type { SubscriptionHealth } from '../store/webhooks.js';
import { RETRY_WINDOW_MS } from './schedule.js';
import type { AttemptRecord, Delivery } from './types.js';

/** Deliveries one subscription may have pending (waiting, due or in flight). */
export const PENDING_PER_WEBHOOK = 1_000;
/** A subscription whose every attempt failed for this long is disabled: the retry window. */
export const DISABLE_AFTER_MS = RETRY_WINDOW_MS;

export const DROPPED_AT_CAP = (cap: number) => `not attempted again: ${cap} newer deliveries are pending for this webhook`;
export const DROPPED_DISABLED = 'not attempted again: webhook disabled (every delivery failed for 24 h)';

/** What the health of a subscription becomes after one of its attempts ended at `now`. */
export function healthAfter(
  before: SubscriptionHealth,
  attempt: { ok: boolean; attemptedAt: number; now: number },
): { health: SubscriptionHealth; changed: boolean; disable: boolean } {
  if (attempt.ok) return { health: {}, changed: before.failing_since !== undefined, disable: false };
  const since = before.failing_since ?? attempt.attemptedAt;
  if (attempt.now - since >= DISABLE_AFTER_MS) {
    return { health: { status: 'disabled', failing_since: since, disabled_at: attempt.now }, changed: true, disable: true };
  }
  return { health: { failing_since: since }, changed: before.failing_since === undefined, disable: false };
}

/**
 * The log record of a delivery ended without another attempt: `exhausted`, `attempt` the number
 * made so far (0 when none was), no status code, `error` saying why, at the time it was ended.
 */
export function endedRecord(d: Delivery, at: number, why: string): AttemptRecord {
  return {
    delivery_id: d.delivery_id,
    webhook_id: d.webhook_id,
    event_id: d.event_id,
    event: d.event,
    attempt: d.attempts,
    status_code: null,
    error: why,
    duration_ms: 0,
    attempted_at: at,
    next_retry_at: null,
    retry_count: Math.max(0, d.attempts - 1),
    state: 'exhausted',
    replay: d.replay,
  };
}
