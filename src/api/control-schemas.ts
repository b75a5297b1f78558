// zod schemas of the sandbox control API's answers (/_sandbox/..., docs/architecture.md). Used by
// `svc sandbox ...` and checked against every control answer in the sandbox tests. No field is
// ever null: an unset one is absent. Amounts are never echoed; keys appear once, at creation.
import { z } from 'zod';
import { QueuedDeliverySchema } from './schemas.js';

const ts = z.iso.datetime({ offset: true });

/** GET /_sandbox/health (no token). */
export const HealthSchema = z.looseObject({
  ok: z.literal(true),
  chain_id: z.number().int(),
  now: ts,
});
export type Health = z.infer<typeof HealthSchema>;

/** One account of a fresh seed, with its new API key (and decryption key) shown once. */
export const SeededAccountSchema = z.looseObject({
  account_id: z.string(),
  handle: z.string(),
  type: z.enum(['personal', 'business', 'agent']),
  kyc_status: z.enum(['unverified', 'pending', 'verified', 'enhanced']),
  public_key: z.string(),
  confidential_ready: z.boolean(),
  key_id: z.string(),
  api_key: z.string(),
  decryption_key: z.string().optional(),
});
export type SeededAccount = z.infer<typeof SeededAccountSchema>;

/** POST /_sandbox/reset. */
export const ResetSchema = z.looseObject({
  ok: z.literal(true),
  seeded: z.array(SeededAccountSchema),
});
export type Reset = z.infer<typeof ResetSchema>;

/** POST /_sandbox/fund: the amount is not echoed. */
export const FundSchema = z.looseObject({
  ok: z.literal(true),
  handle: z.string(),
  asset: z.string(),
});
export type Fund = z.infer<typeof FundSchema>;

/** An API key record (never the key itself). `last_used_at` / `revoked_at` once they happened. */
export const ApiKeySchema = z.looseObject({
  key_id: z.string(),
  name: z.string(),
  account: z.string(),
  key_hint: z.string(),
  created_at: ts,
  last_used_at: ts.optional(),
  request_count: z.number().int().nonnegative(),
  revoked_at: ts.optional(),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

/** POST /_sandbox/keys (201): the record plus the key, shown once. */
export const KeyCreatedSchema = ApiKeySchema.extend({ key: z.string() });
export type KeyCreated = z.infer<typeof KeyCreatedSchema>;

/** GET /_sandbox/keys[?account=@h]. POST /_sandbox/keys/{id}/revoke answers one ApiKeySchema. */
export const KeyListSchema = z.looseObject({ keys: z.array(ApiKeySchema) });
export type KeyList = z.infer<typeof KeyListSchema>;

/** GET /_sandbox/clock and POST /_sandbox/clock/advance. */
export const ClockSchema = z.looseObject({
  now: ts,
  offset_ms: z.number().int().nonnegative(),
});
export type Clock = z.infer<typeof ClockSchema>;

/** POST /_sandbox/trigger (202): a sample event and the deliveries it queued. */
export const TriggerSchema = z.looseObject({
  event: z.string(),
  event_id: z.string(),
  account: z.string(),
  sample: z.literal(true),
  deliveries: z.array(QueuedDeliverySchema),
});
export type Trigger = z.infer<typeof TriggerSchema>;
