// The webhook engine's working types. Stored records (events, deliveries, attempts) are the
// zod-defined ones of ../records.ts; a subscription in memory holds its secret in the clear
// (it must sign), while the stored one holds it sealed.
import type { SubscriptionRecord } from '../records.js';

export type { AttemptRecord, Delivery, DeliveryState, StoredEvent } from '../records.js';

export interface Subscription extends Omit<SubscriptionRecord, 'secret_sealed'> {
  /** The signing secret, in memory only. */
  secret: string;
}

/** What one HTTP attempt came to. */
export interface AttemptOutcome {
  status: number | null;
  error: string | null;
  durationMs: number;
  timedOut: boolean;
  retryAfterMs?: number;
}
