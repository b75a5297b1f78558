// Records of the webhook engine: subscriptions, stored events, deliveries (one event to one
// subscription, with its attempts) and the attempt log that GET .../deliveries shows.
import type { EventType } from '../../domain/events.js';

export interface Subscription {
  webhook_id: string;
  account_id: string;
  url: string;
  events: EventType[];
  /** The signing secret. Kept in memory as is (it must sign); sealed in the state file. */
  secret: string;
  created_at: number;
}

/** An event as fired for one account (each side of a transfer gets its own). */
export interface StoredEvent {
  event_id: string;
  type: EventType;
  /** The account concerned (for an agent's events, the agent). */
  account_id: string;
  /** The accounts whose subscriptions receive it: the account concerned and its parent. */
  audience: string[];
  /** When it happened, sandbox clock. */
  occurred_at: number;
  /** The payload as JSON text; `timestamp` is replaced by the signing time at each attempt. */
  body: string;
}

export type DeliveryState = 'succeeded' | 'retrying' | 'exhausted';

/** One event on its way to one subscription. Lives until it succeeds or is exhausted. */
export interface Delivery {
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  event: EventType;
  /** The stored event body (see StoredEvent.body). */
  body: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the first attempt was made (start of the 24 h window); null before it. */
  first_attempt_at: number | null;
  /** When the next attempt is due (sandbox clock). */
  due_at: number;
  /** The next attempt is the last one (end of the 24 h window). */
  final: boolean;
  /** A replay through POST /v1/webhooks/{id}/replay/{event_id}. */
  replay: boolean;
}

/** One attempt, as GET /v1/webhooks/{id}/deliveries shows it. */
export interface AttemptRecord {
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  event: EventType;
  attempt: number;
  /** null when no HTTP answer arrived (timeout, connection error). */
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: number;
  next_retry_at: number | null;
  retry_count: number;
  state: DeliveryState;
  replay: boolean;
}

/** What one HTTP attempt came to. */
export interface AttemptOutcome {
  status: number | null;
  error: string | null;
  durationMs: number;
  timedOut: boolean;
  retryAfterMs?: number;
}
