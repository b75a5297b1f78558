// zod schemas of the service's answers: the spec's shapes, plus the sandbox's documented
// extensions as optional fields. The tool parses answers with them, and the sandbox tests check
// every sandbox answer against them (test/sandbox/helpers.ts), so there is one definition.
// - No field is ever `null`: an unset optional field is absent. (The HTTP client drops
//   null-valued keys before parsing, so a third-party server that sends null still parses.)
// - Objects are loose: unknown extra fields are kept.
// - Lists: the tool reads them through listOf() (an array, `{data: [...]}` or `{<noun>: [...]}`);
//   the *ListSchema / *PageSchema objects are the exact shapes the sandbox answers (DESIGN.md).
import { z } from 'zod';

/** ISO 8601 date-time (the service sends UTC; an offset is tolerated). */
const ts = z.iso.datetime({ offset: true });

// ---- transfers ----------------------------------------------------------------------------------

export const TRANSFER_STATUSES = ['pending', 'confirmed', 'failed'] as const;

/**
 * A transfer as created, fetched by id, or listed. `from` and `confirmed_at` are given when fetched
 * by id (`confirmed_at` once confirmed). `tx_hash` is tolerated absent: a service may not have one
 * before the transaction is broadcast (the sandbox always sends it).
 */
export const TransferSchema = z.looseObject({
  transfer_id: z.string(),
  status: z.enum(TRANSFER_STATUSES),
  from: z.string().optional(),
  to: z.string(),
  confidential: z.boolean(),
  tx_hash: z.string().optional(),
  created_at: ts,
  confirmed_at: ts.optional(),
  /** Sandbox extensions. */
  asset: z.string().optional(),
  amount_ciphertext: z.string().optional(),
  memo_ciphertext: z.string().optional(),
});
export type Transfer = z.infer<typeof TransferSchema>;

/** GET /v1/transfers as the sandbox answers it (DESIGN.md). */
export const TransferPageSchema = z.looseObject({
  transfers: z.array(TransferSchema),
  limit: z.number().int(),
  offset: z.number().int(),
  has_more: z.boolean(),
});
export type TransferPage = z.infer<typeof TransferPageSchema>;

/**
 * The 202 answer of an agent's transfer held for approval (DESIGN.md: transaction_id, status
 * "pending_approval", expires_at). No transfer exists yet. The rest is the sandbox's.
 */
export const HeldTransactionSchema = z.looseObject({
  transaction_id: z.string(),
  status: z.string(),
  expires_at: ts,
  agent: z.string().optional(),
  to: z.string().optional(),
  asset: z.string().optional(),
  requested_at: ts.optional(),
});
export type HeldTransaction = z.infer<typeof HeldTransactionSchema>;

// ---- accounts and balances ----------------------------------------------------------------------

/** `created_at` is tolerated absent (the tool never needs it to work). */
export const AccountSchema = z.looseObject({
  account_id: z.string(),
  handle: z.string(),
  type: z.enum(['personal', 'business', 'agent']),
  public_key: z.string(),
  kyc_status: z.enum(['unverified', 'pending', 'verified', 'enhanced']),
  created_at: ts.optional(),
  /** Sandbox extension: the account's viewing public key (`vpk1_...`). */
  viewing_public_key: z.string().optional(),
});
export type Account = z.infer<typeof AccountSchema>;

/** With a proof: `{asset, amount}`. Without: `{asset, nonzero, ciphertext?, version?}` (sandbox). */
export const BalanceEntrySchema = z.looseObject({
  asset: z.string(),
  amount: z.string().optional(),
  nonzero: z.boolean().optional(),
  ciphertext: z.string().optional(),
  /** Sandbox extension: the balance version the ciphertext is bound to. */
  version: z.number().int().optional(),
});
export type BalanceEntry = z.infer<typeof BalanceEntrySchema>;

export const BalancesSchema = z.looseObject({ balances: z.array(BalanceEntrySchema) });
export type Balances = z.infer<typeof BalancesSchema>;

// ---- agents and spend policies ------------------------------------------------------------------

/** An agent account (list element, create answer, suspend/resume answer). */
export const AgentSchema = z.looseObject({
  account_id: z.string(),
  handle: z.string(),
  public_key: z.string(),
  /** `active` in the spec; other values are not shown (the sandbox adds `suspended`). */
  status: z.string(),
  spend_policy_id: z.string(),
  /** Sandbox extensions. */
  type: z.literal('agent').optional(),
  created_at: ts.optional(),
  /** Create answer only: the agent's decryption key, shown once. */
  decryption_key: z.string().optional(),
});
export type Agent = z.infer<typeof AgentSchema>;

export const AgentListSchema = z.looseObject({ agents: z.array(AgentSchema) });
export type AgentList = z.infer<typeof AgentListSchema>;

const limit = z.number().nonnegative();

/**
 * A spend policy as read (GET) and as the sandbox answers a PATCH. An omitted field means no
 * restriction. Limits are JSON numbers.
 */
export const SpendPolicySchema = z.looseObject({
  policy_id: z.string(),
  daily_limit_usdc: limit.optional(),
  per_transaction_limit_usdc: limit.optional(),
  allowed_recipients: z.array(z.string()).optional(),
  assets: z.array(z.string()).optional(),
  active_hours: z.string().optional(),
  hitl_threshold_usdc: limit.optional(),
  updated_at: ts,
  /** Sandbox extensions: today's spend encrypted to the owner's viewing key, and its UTC day. */
  daily_spent_ciphertext: z.string().optional(),
  daily_spent_day: z.string().optional(),
});
export type SpendPolicy = z.infer<typeof SpendPolicySchema>;

/** The PATCH answer's shape is not shown by the spec: the policy, read leniently. */
export const SpendPolicyPatchSchema = SpendPolicySchema.partial({ policy_id: true, updated_at: true });
export type SpendPolicyPatch = z.infer<typeof SpendPolicyPatchSchema>;

/** An element of GET /v1/agents/transactions/pending (no amount: encrypted). */
export const PendingTransactionSchema = z.looseObject({
  transaction_id: z.string(),
  agent: z.string(),
  to: z.string(),
  requested_at: ts,
  expires_at: ts,
  /** Sandbox extensions (ciphertexts to the owner's viewing key). */
  asset: z.string().optional(),
  amount_ciphertext: z.string().optional(),
  memo_ciphertext: z.string().optional(),
});
export type PendingTransaction = z.infer<typeof PendingTransactionSchema>;

export const PendingListSchema = z.looseObject({ pending: z.array(PendingTransactionSchema) });
export type PendingList = z.infer<typeof PendingListSchema>;

/**
 * The answer of approve and reject (the transaction's state). `decided_at` once decided;
 * `transfer_id` only when approved (a rejection made no transfer).
 */
export const TransactionStateSchema = z.looseObject({
  transaction_id: z.string(),
  status: z.string(),
  agent: z.string(),
  to: z.string(),
  asset: z.string(),
  requested_at: ts,
  expires_at: ts,
  decided_at: ts.optional(),
  transfer_id: z.string().optional(),
});
export type TransactionState = z.infer<typeof TransactionStateSchema>;

// ---- webhooks -----------------------------------------------------------------------------------

/** A subscription; `secret` only in the create answer. */
export const WebhookSchema = z.looseObject({
  webhook_id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  secret: z.string().optional(),
  created_at: ts,
});
export type Webhook = z.infer<typeof WebhookSchema>;

export const WebhookListSchema = z.looseObject({ webhooks: z.array(WebhookSchema) });
export type WebhookList = z.infer<typeof WebhookListSchema>;

/** DELETE /v1/webhooks/{id} (the spec does not show it; the sandbox's answer). */
export const WebhookDeletedSchema = z.looseObject({
  webhook_id: z.string(),
  deleted: z.literal(true),
});
export type WebhookDeleted = z.infer<typeof WebhookDeletedSchema>;

/** A delivery queued by a replay (202) or a sandbox trigger: no attempt made yet. */
export const QueuedDeliverySchema = z.looseObject({
  delivery_id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event: z.string(),
  replay: z.boolean(),
  state: z.literal('queued'),
});
export type QueuedDelivery = z.infer<typeof QueuedDeliverySchema>;

/**
 * One delivery attempt (DESIGN.md). `status_code` is absent when no HTTP answer arrived (timeout,
 * connection error), `error` when it succeeded, `next_retry_at` when no retry is planned.
 */
export const DeliverySchema = z.looseObject({
  delivery_id: z.string(),
  event_id: z.string(),
  event: z.string(),
  attempt: z.number().int(),
  status_code: z.number().int().optional(),
  error: z.string().optional(),
  duration_ms: z.number().nonnegative(),
  attempted_at: ts,
  next_retry_at: ts.optional(),
  retry_count: z.number().int(),
  state: z.enum(['succeeded', 'retrying', 'exhausted']),
  /** Sandbox extensions. */
  webhook_id: z.string().optional(),
  replay: z.boolean().optional(),
});
export type Delivery = z.infer<typeof DeliverySchema>;

export const DeliveryListSchema = z.looseObject({ deliveries: z.array(DeliverySchema) });
export type DeliveryList = z.infer<typeof DeliveryListSchema>;

// ---- errors -------------------------------------------------------------------------------------

/**
 * The error body (DESIGN.md). Extra fields by code: `reason` (policy_violation), `field`
 * (invalid_policy), `status` (transaction_already_decided). The tool itself reads any error
 * body leniently (src/api/errors.ts); this is the shape the sandbox answers.
 */
export const ErrorBodySchema = z.looseObject({
  error: z.looseObject({
    code: z.string().min(1),
    message: z.string().min(1),
    request_id: z.string(),
    reason: z.string().optional(),
    field: z.string().optional(),
    status: z.string().optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

// ---- lists, leniently ---------------------------------------------------------------------------

/** A list that may be a bare array, `{data: [...]}` or `{<noun>: [...]}`; page fields kept. */
export function listOf<T extends z.ZodType>(noun: string, item: T) {
  return z
    .union([
      z.array(item),
      z.looseObject({ [noun]: z.array(item) }),
      z.looseObject({ data: z.array(item) }),
    ])
    .transform((v): { items: z.infer<T>[]; hasMore?: boolean } => {
      if (Array.isArray(v)) return { items: v };
      const rec = v as Record<string, unknown>;
      const items = (rec[noun] ?? rec.data) as z.infer<T>[];
      const hasMore = typeof rec.has_more === 'boolean' ? rec.has_more : undefined;
      return { items, hasMore };
    });
}
