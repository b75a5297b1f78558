// The webhook engine's types. Its state lives in the store: the stored records (events,
// deliveries, attempts) are the zod-defined ones of ../records.ts, and a subscription in memory
// (its secret in the clear, for signing) is store/webhooks.ts's.
export type { AttemptRecord, Delivery, DeliveryState, StoredEvent } from '../records.js';
export type { Subscription } from '../store/webhooks.js';

/** What one HTTP attempt came to. */
export interface AttemptOutcome {
  status: number | null;
  error: string | null;
  durationMs: number;
  timedOut: boolean;
  retryAfterMs?: number;
}
