// The webhook part of the state file: subscriptions (secrets sealed under the sandbox key),
// stored events (bodies carry no amount), deliveries still to be made with their due times,
// and the attempt log. Optional in the file, so states written before webhooks still load.
import { z } from 'zod';
import { EVENT_TYPES } from '../../domain/events.js';

const ms = z.number().int();
const eventType = z.enum(EVENT_TYPES);

export const WebhookSnapshotSchema = z.object({
  subscriptions: z.array(
    z.object({
      webhook_id: z.string(),
      account_id: z.string(),
      url: z.string(),
      events: z.array(eventType),
      secret_sealed: z.string(),
      created_at: ms,
    }),
  ),
  events: z.array(
    z.object({
      event_id: z.string(),
      type: eventType,
      account_id: z.string(),
      audience: z.array(z.string()),
      occurred_at: ms,
      body: z.string(),
    }),
  ),
  deliveries: z.array(
    z.object({
      delivery_id: z.string(),
      webhook_id: z.string(),
      event_id: z.string(),
      event: eventType,
      body: z.string(),
      attempts: z.number().int().nonnegative(),
      first_attempt_at: ms.nullable(),
      due_at: ms,
      final: z.boolean(),
      replay: z.boolean(),
    }),
  ),
  attempts: z.array(
    z.object({
      delivery_id: z.string(),
      webhook_id: z.string(),
      event_id: z.string(),
      event: eventType,
      attempt: z.number().int().positive(),
      status_code: z.number().int().nullable(),
      error: z.string().nullable(),
      duration_ms: z.number().nonnegative(),
      attempted_at: ms,
      next_retry_at: ms.nullable(),
      retry_count: z.number().int().nonnegative(),
      state: z.enum(['succeeded', 'retrying', 'exhausted']),
      replay: z.boolean(),
    }),
  ),
});
export type WebhookSnapshot = z.infer<typeof WebhookSnapshotSchema>;

/** Associated data of a sealed signing secret: bound to its subscription. */
export const secretAad = (webhookId: string) => `svc-sandbox/webhook-secret/v1|${webhookId}`;
