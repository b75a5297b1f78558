// zod schemas of the sandbox control API's answers (/_sandbox/..., docs/architecture.md). Used by
// `svc sandbox ...` and checked against every control answer in the sandbox tests. No field is
// ever null: an unset one is absent. Amounts are never echoed; keys appear once, at creation.
import * as z from 'zod/mini';
import { lazySchema } from './lazy-schema.js';
import { QueuedDeliverySchema } from './schemas.js';

const ts = lazySchema(() => z.iso.datetime({ offset: true }));

/** GET /_sandbox/health (no token). */
export const HealthSchema = lazySchema(() => z.looseObject({
  ok: z.literal(true),
  chain_id: z.int(),
  now: ts,
  /** This start's nonce and process (`sandbox stop` checks both before it signals). */
  instance: z.optional(z.string()),
  pid: z.optional(z.int()),
}));
export type Health = z.infer<typeof HealthSchema>;

/** One account of a fresh seed, with its new API key (and decryption key) shown once. */
export const SeededAccountSchema = lazySchema(() => z.looseObject({
  account_id: z.string(),
  handle: z.string(),
  type: z.enum(['personal', 'business', 'agent']),
  kyc_status: z.enum(['unverified', 'pending', 'verified', 'enhanced']),
  public_key: z.string(),
  confidential_ready: z.boolean(),
  key_id: z.string(),
  api_key: z.string(),
  decryption_key: z.optional(z.string()),
}));
export type SeededAccount = z.infer<typeof SeededAccountSchema>;

/** POST /_sandbox/reset. */
export const ResetSchema = lazySchema(() => z.looseObject({
  ok: z.literal(true),
  seeded: z.array(SeededAccountSchema),
}));
export type Reset = z.infer<typeof ResetSchema>;

/** POST /_sandbox/fund: the amount is not echoed. */
export const FundSchema = lazySchema(() => z.looseObject({
  ok: z.literal(true),
  handle: z.string(),
  asset: z.string(),
}));
export type Fund = z.infer<typeof FundSchema>;

/** An API key record (never the key itself). `last_used_at` / `revoked_at` once they happened. */
export const ApiKeySchema = lazySchema(() => z.looseObject({
  key_id: z.string(),
  name: z.string(),
  account: z.string(),
  key_hint: z.string(),
  created_at: ts,
  last_used_at: z.optional(ts),
  request_count: z.int().check(z.nonnegative()),
  revoked_at: z.optional(ts),
}));
export type ApiKey = z.infer<typeof ApiKeySchema>;

/** POST /_sandbox/keys (201): the record plus the key, shown once. */
export const KeyCreatedSchema = lazySchema(() => z.extend(ApiKeySchema, { key: z.string() }));
export type KeyCreated = z.infer<typeof KeyCreatedSchema>;

/** GET /_sandbox/keys[?account=@h]. POST /_sandbox/keys/{id}/revoke answers one ApiKeySchema. */
export const KeyListSchema = lazySchema(() => z.looseObject({ keys: z.array(ApiKeySchema) }));
export type KeyList = z.infer<typeof KeyListSchema>;

/** GET /_sandbox/clock and POST /_sandbox/clock/advance. */
export const ClockSchema = lazySchema(() => z.looseObject({
  now: ts,
  offset_ms: z.int().check(z.nonnegative()),
}));
export type Clock = z.infer<typeof ClockSchema>;

/** POST /_sandbox/trigger (202): a sample event, the ids of the objects it names, and the deliveries it queued. */
export const TriggerSchema = lazySchema(() => z.looseObject({
  event: z.string(),
  event_id: z.string(),
  account: z.string(),
  sample: z.literal(true),
  transfer_id: z.optional(z.string()),
  transaction_id: z.optional(z.string()),
  agent: z.optional(z.string()),
  policy_id: z.optional(z.string()),
  deliveries: z.array(QueuedDeliverySchema),
}));
export type Trigger = z.infer<typeof TriggerSchema>;

/** GET /_sandbox/export: the whole state, without sealed values, ciphertexts, key hashes or secrets. Times are epoch ms. */
const ms = z.int();
const eventType = z.string();
export const ExportSchema = lazySchema(() => z.looseObject({
  format: z.literal('svc-sandbox-export'),
  version: z.literal(1),
  schema_version: z.int().check(z.positive()),
  chain_id: z.int(),
  clock: z.looseObject({ now: ts, offset_ms: z.int().check(z.nonnegative()) }),
  accounts: z.array(z.looseObject({
    account_id: z.string(), handle: z.string(), type: z.string(), public_key: z.string(), kyc_status: z.string(),
    confidential_ready: z.boolean(), created_at: ms, viewing_public_key: z.optional(z.string()),
    parent_account_id: z.optional(z.string()), status: z.optional(z.string()),
  })),
  api_keys: z.array(z.looseObject({
    key_id: z.string(), name: z.string(), account_id: z.string(), hint: z.string(), created_at: ms,
    last_used_at: z.optional(ms), request_count: z.int(), revoked_at: z.optional(ms),
  })),
  /** A balance's version goes up at every change; its amount stays out. */
  balances: z.array(z.looseObject({ account_id: z.string(), asset: z.string(), version: z.int() })),
  transfers: z.array(z.looseObject({
    transfer_id: z.string(), from_account_id: z.string(), from: z.string(), to: z.string(), to_account_id: z.optional(z.string()),
    to_address: z.string(), asset: z.string(), confidential: z.boolean(), status: z.string(), tx_hash: z.string(),
    created_at: ms, settles_at: ms, confirmed_at: z.optional(ms), failed_at: z.optional(ms), has_memo: z.boolean(),
  })),
  policies: z.array(z.looseObject({
    policy_id: z.string(), agent_account_id: z.string(), created_at: ms, updated_at: ms,
    fields: z.looseObject({
      daily_limit_usdc: z.optional(z.union([z.number(), z.string()])), per_transaction_limit_usdc: z.optional(z.union([z.number(), z.string()])),
      hitl_threshold_usdc: z.optional(z.union([z.number(), z.string()])), allowed_recipients: z.optional(z.array(z.string())),
      assets: z.optional(z.array(z.string())), active_hours: z.optional(z.string()), approvals_required: z.optional(z.int()),
    }),
  })),
  held: z.array(z.looseObject({
    transaction_id: z.string(), agent_account_id: z.string(), owner_account_id: z.string(), agent: z.string(), to: z.string(),
    asset: z.string(), confidential: z.boolean(), requested_at: ms, expires_at: ms, status: z.string(),
    decided_at: z.optional(ms), transfer_id: z.optional(z.string()), has_memo: z.boolean(),
    rule: z.optional(z.string()), hitl_threshold_usdc: z.optional(z.number()),
    decided_by: z.optional(z.looseObject({ key_name: z.string(), account: z.string() })), reason: z.optional(z.string()),
    // The quorum (DESIGN.md "Quorum"): each approval with its key's id, the approver's identity.
    approvals_required: z.optional(z.int()),
    approvals: z.optional(z.array(z.looseObject({ key_id: z.string(), key_name: z.string(), account: z.string(), at: ms }))),
  })),
  idempotency: z.array(z.looseObject({ scope: z.string(), key: z.string(), status: z.int(), created_at: ms })),
  webhooks: z.looseObject({
    subscriptions: z.array(z.looseObject({
      webhook_id: z.string(), account_id: z.string(), url: z.string(), events: z.array(eventType), created_at: ms,
      status: z.optional(z.string()), failing_since: z.optional(ms), disabled_at: z.optional(ms),
    })),
    events: z.array(z.looseObject({ event_id: z.string(), type: eventType, account_id: z.string(), audience: z.array(z.string()), occurred_at: ms, body: z.string() })),
    deliveries: z.array(z.looseObject({
      delivery_id: z.string(), webhook_id: z.string(), event_id: z.string(), event: eventType, body: z.string(), attempts: z.int(),
      first_attempt_at: z.optional(ms), due_at: ms, final: z.boolean(), replay: z.boolean(),
    })),
    attempts: z.array(z.looseObject({
      delivery_id: z.string(), webhook_id: z.string(), event_id: z.string(), event: eventType, attempt: z.int(),
      status_code: z.optional(z.int()), error: z.optional(z.string()), duration_ms: z.number(), attempted_at: ms,
      next_retry_at: z.optional(ms), retry_count: z.int(), state: z.string(), replay: z.boolean(),
    })),
  }),
}));
export type SandboxExport = z.infer<typeof ExportSchema>;
