// zod schemas of the service's answers: the spec's shapes, plus the sandbox's documented
// extensions as optional fields. The tool parses answers with them, and the sandbox tests check
// every sandbox answer against them (test/sandbox/helpers.ts), so there is one definition.
// - No field is ever `null`: an unset optional field is absent. (The HTTP client drops
//   null-valued keys before parsing, so a third-party server that sends null still parses.)
// - Objects are loose: unknown extra fields are kept.
// - Lists: the tool reads them through listOf() (an array, `{data: [...]}` or `{<noun>: [...]}`);
//   the *ListSchema / *PageSchema objects are the exact shapes the sandbox answers (DESIGN.md).
//
// zod/mini, not the classic build: the same checks from a tenth of the code, which every command
// that talks to the service loads at start-up (about 20 ms less to parse). Messages in English.
import * as z from 'zod/mini';
import { lazySchema } from './lazy-schema.js';
import en from 'zod/v4/locales/en.js';

z.config(en());

/** ISO 8601 date-time (the service sends UTC; an offset is tolerated). */
const ts = lazySchema(() => z.iso.datetime({ offset: true }));

// ---- transfers ----------------------------------------------------------------------------------

export const TRANSFER_STATUSES = ['pending', 'confirmed', 'failed'] as const;

/**
 * A transfer as created, fetched by id, or listed. `from` and `confirmed_at` are given when fetched
 * by id (`confirmed_at` once confirmed). `tx_hash` is tolerated absent: a service may not have one
 * before the transaction is broadcast (the sandbox always sends it).
 */
export const TransferSchema = lazySchema(() => z.looseObject({
  transfer_id: z.string(),
  status: z.enum(TRANSFER_STATUSES),
  from: z.optional(z.string()),
  to: z.string(),
  confidential: z.boolean(),
  tx_hash: z.optional(z.string()),
  created_at: ts,
  confirmed_at: z.optional(ts),
  /** Sandbox extensions. */
  asset: z.optional(z.string()),
  amount_ciphertext: z.optional(z.string()),
  memo_ciphertext: z.optional(z.string()),
}));
export type Transfer = z.infer<typeof TransferSchema>;

/** GET /v1/transfers as the sandbox answers it (DESIGN.md). */
export const TransferPageSchema = lazySchema(() => z.looseObject({
  transfers: z.array(TransferSchema),
  limit: z.int(),
  offset: z.int(),
  has_more: z.boolean(),
}));
export type TransferPage = z.infer<typeof TransferPageSchema>;

/** One owner key's approval of a held transaction (beyond the spec: DESIGN.md "Quorum"). */
export const ApprovalSchema = lazySchema(() => z.looseObject({ key_name: z.string(), account: z.string(), at: ts }));
export type Approval = z.infer<typeof ApprovalSchema>;

/**
 * A held transaction's quorum (beyond the spec: DESIGN.md "Quorum"): how many distinct owner keys
 * it needs, fixed when held, and the approvals so far, newest last. Optional, so that a service
 * without quorums (or an older sandbox) still parses: absent means one approval, none yet.
 */
function quorumShape() {
  return { approvals_required: z.optional(z.int()), approvals: z.optional(z.array(ApprovalSchema)) };
}

/**
 * The 202 answer of an agent's transfer held for approval (DESIGN.md: transaction_id, status
 * "pending_approval", expires_at). No transfer exists yet. The rest is the sandbox's.
 */
export const HeldTransactionSchema = lazySchema(() => z.looseObject({
  transaction_id: z.string(),
  status: z.string(),
  expires_at: ts,
  agent: z.optional(z.string()),
  to: z.optional(z.string()),
  asset: z.optional(z.string()),
  requested_at: z.optional(ts),
  ...quorumShape(),
}));
export type HeldTransaction = z.infer<typeof HeldTransactionSchema>;

// ---- accounts and balances ----------------------------------------------------------------------

/** `created_at` is tolerated absent (the tool never needs it to work). */
export const AccountSchema = lazySchema(() => z.looseObject({
  account_id: z.string(),
  handle: z.string(),
  type: z.enum(['personal', 'business', 'agent']),
  public_key: z.string(),
  kyc_status: z.enum(['unverified', 'pending', 'verified', 'enhanced']),
  created_at: z.optional(ts),
  /** Sandbox extension: the account's viewing public key (`vpk1_...`). */
  viewing_public_key: z.optional(z.string()),
}));
export type Account = z.infer<typeof AccountSchema>;

/** With a proof: `{asset, amount}`. Without: `{asset, nonzero, ciphertext?, version?}` (sandbox). */
export const BalanceEntrySchema = lazySchema(() => z.looseObject({
  asset: z.string(),
  amount: z.optional(z.string()),
  nonzero: z.optional(z.boolean()),
  ciphertext: z.optional(z.string()),
  /** Sandbox extension: the balance version the ciphertext is bound to. */
  version: z.optional(z.int()),
}));
export type BalanceEntry = z.infer<typeof BalanceEntrySchema>;

export const BalancesSchema = lazySchema(() => z.looseObject({ balances: z.array(BalanceEntrySchema) }));
export type Balances = z.infer<typeof BalancesSchema>;

// ---- agents and spend policies ------------------------------------------------------------------

/** An agent account (list element, create answer, suspend/resume answer). */
export const AgentSchema = lazySchema(() => z.looseObject({
  account_id: z.string(),
  handle: z.string(),
  public_key: z.string(),
  /** `active` in the spec; other values are not shown (the sandbox adds `suspended`). */
  status: z.string(),
  spend_policy_id: z.string(),
  /** Sandbox extensions. */
  type: z.optional(z.literal('agent')),
  created_at: z.optional(ts),
  /** Create answer only: the agent's decryption key, shown once. */
  decryption_key: z.optional(z.string()),
}));
export type Agent = z.infer<typeof AgentSchema>;

export const AgentListSchema = lazySchema(() => z.looseObject({ agents: z.array(AgentSchema) }));
export type AgentList = z.infer<typeof AgentListSchema>;

const limit = lazySchema(() => z.number().check(z.nonnegative()));

/**
 * A spend policy as read (GET) and as the sandbox answers a PATCH. An omitted field means no
 * restriction. Limits are JSON numbers.
 */
export const SpendPolicySchema = lazySchema(() => z.looseObject({
  policy_id: z.string(),
  daily_limit_usdc: z.optional(limit),
  per_transaction_limit_usdc: z.optional(limit),
  allowed_recipients: z.optional(z.array(z.string())),
  assets: z.optional(z.array(z.string())),
  active_hours: z.optional(z.string()),
  hitl_threshold_usdc: z.optional(limit),
  /** Beyond the spec (DESIGN.md "Quorum"): distinct owner keys a held transaction needs; absent is 1. */
  approvals_required: z.optional(z.int()),
  updated_at: ts,
  /** Sandbox extensions: today's spend encrypted to the owner's viewing key, and its UTC day. */
  daily_spent_ciphertext: z.optional(z.string()),
  daily_spent_day: z.optional(z.string()),
}));
export type SpendPolicy = z.infer<typeof SpendPolicySchema>;

/** The PATCH answer's shape is not shown by the spec: the policy, read leniently. */
export const SpendPolicyPatchSchema = lazySchema(() => z.partial(SpendPolicySchema, { policy_id: true, updated_at: true }));
export type SpendPolicyPatch = z.infer<typeof SpendPolicyPatchSchema>;

/** An element of GET /v1/agents/transactions/pending (no amount: encrypted). */
export const PendingTransactionSchema = lazySchema(() => z.looseObject({
  transaction_id: z.string(),
  agent: z.string(),
  to: z.string(),
  requested_at: ts,
  expires_at: ts,
  /** Sandbox extensions (ciphertexts to the owner's viewing key; the quorum). */
  asset: z.optional(z.string()),
  amount_ciphertext: z.optional(z.string()),
  memo_ciphertext: z.optional(z.string()),
  ...quorumShape(),
}));
export type PendingTransaction = z.infer<typeof PendingTransactionSchema>;

export const PendingListSchema = lazySchema(() => z.looseObject({ pending: z.array(PendingTransactionSchema) }));
export type PendingList = z.infer<typeof PendingListSchema>;

/** The statuses a held transaction reads as (beyond the spec: docs/agents.md). */
export const HELD_STATUSES = ['pending_approval', 'approved', 'rejected', 'expired'] as const;
export type HeldStatus = (typeof HELD_STATUSES)[number];

/** Who approved or rejected a held transaction: the deciding key's name and its account's handle. */
export const DecidedBySchema = lazySchema(() => z.looseObject({ key_name: z.string(), account: z.string() }));

/**
 * A held agent transaction as a resource (beyond the spec, which leaves approve / reject's answer
 * "not shown" and has no way to read one: docs/agents.md). GET /v1/agents/transactions/{id},
 * each item of the history GET /v1/agents/transactions, and the answer of approve and reject.
 * `decided_at` / `decided_by` once approved or rejected (an expiry has neither), `transfer_id`
 * only when approved, `reason` when a rejection gave one; `approvals_required` and `approvals`
 * (the quorum: a partial approval answers it still `pending_approval`); the amount and memo only as
 * ciphertexts to the reader's viewing key. `status` is read as text (HELD_STATUSES are ours;
 * another service may say something else, which the tool reports rather than guesses).
 */
export const HeldResourceSchema = lazySchema(() => z.looseObject({
  transaction_id: z.string(),
  status: z.string(),
  agent: z.string(),
  to: z.string(),
  requested_at: ts,
  expires_at: ts,
  asset: z.optional(z.string()),
  decided_at: z.optional(ts),
  decided_by: z.optional(DecidedBySchema),
  /** The policy rule that held it (`hitl_threshold`), and the threshold then. */
  rule: z.optional(z.string()),
  hitl_threshold_usdc: z.optional(limit),
  /** The quorum: `decided_by` is the key whose approval completed it (or the rejecting key). */
  ...quorumShape(),
  reason: z.optional(z.string()),
  transfer_id: z.optional(z.string()),
  amount_ciphertext: z.optional(z.string()),
  memo_ciphertext: z.optional(z.string()),
}));
export type HeldResource = z.infer<typeof HeldResourceSchema>;

/** GET /v1/agents/transactions as the sandbox answers it: newest first, paged like transfers. */
export const HeldPageSchema = lazySchema(() => z.looseObject({
  transactions: z.array(HeldResourceSchema),
  limit: z.int(),
  offset: z.int(),
  has_more: z.boolean(),
}));
export type HeldPage = z.infer<typeof HeldPageSchema>;

/** The answer of approve and reject: the held transaction as a resource. */
export const TransactionStateSchema = HeldResourceSchema;
export type TransactionState = HeldResource;

// ---- webhooks -----------------------------------------------------------------------------------

/**
 * A subscription; `secret` only in the create answer. Beyond the spec (the sandbox's delivery
 * limits, docs/webhooks.md): `status` is `disabled` (with `disabled_at`) once every delivery
 * failed for 24 h, and absent while it is active; any other value is shown as the service sent it.
 */
export const WebhookSchema = lazySchema(() => z.looseObject({
  webhook_id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  secret: z.optional(z.string()),
  created_at: ts,
  status: z.optional(z.string()),
  disabled_at: z.optional(ts),
}));
export type Webhook = z.infer<typeof WebhookSchema>;

export const WebhookListSchema = lazySchema(() => z.looseObject({ webhooks: z.array(WebhookSchema) }));
export type WebhookList = z.infer<typeof WebhookListSchema>;

/** DELETE /v1/webhooks/{id} (the spec does not show it; the sandbox's answer). */
export const WebhookDeletedSchema = lazySchema(() => z.looseObject({
  webhook_id: z.string(),
  deleted: z.literal(true),
}));
export type WebhookDeleted = z.infer<typeof WebhookDeletedSchema>;

/** A delivery queued by a replay (202) or a sandbox trigger: no attempt made yet. */
export const QueuedDeliverySchema = lazySchema(() => z.looseObject({
  delivery_id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event: z.string(),
  replay: z.boolean(),
  state: z.literal('queued'),
}));
export type QueuedDelivery = z.infer<typeof QueuedDeliverySchema>;

/**
 * One delivery attempt (DESIGN.md). `status_code` is absent when no HTTP answer arrived (timeout,
 * connection error), `error` when it succeeded, `next_retry_at` when no retry is planned.
 */
export const DeliverySchema = lazySchema(() => z.looseObject({
  delivery_id: z.string(),
  event_id: z.string(),
  event: z.string(),
  attempt: z.int(),
  status_code: z.optional(z.int()),
  error: z.optional(z.string()),
  duration_ms: z.number().check(z.nonnegative()),
  attempted_at: ts,
  next_retry_at: z.optional(ts),
  retry_count: z.int(),
  state: z.enum(['succeeded', 'retrying', 'exhausted']),
  /** Sandbox extensions. */
  webhook_id: z.optional(z.string()),
  replay: z.optional(z.boolean()),
}));
export type Delivery = z.infer<typeof DeliverySchema>;

export const DeliveryListSchema = lazySchema(() => z.looseObject({ deliveries: z.array(DeliverySchema) }));
export type DeliveryList = z.infer<typeof DeliveryListSchema>;

// ---- errors -------------------------------------------------------------------------------------

/**
 * The error body (DESIGN.md). Extra fields by code: `reason` (policy_violation), `field`
 * (invalid_policy), `status` (transaction_already_decided). The tool itself reads any error
 * body leniently (src/api/errors.ts); this is the shape the sandbox answers.
 */
export const ErrorBodySchema = lazySchema(() => z.looseObject({
  error: z.looseObject({
    code: z.string().check(z.minLength(1)),
    message: z.string().check(z.minLength(1)),
    request_id: z.string(),
    reason: z.optional(z.string()),
    field: z.optional(z.string()),
    status: z.optional(z.string()),
  }),
}));
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

// ---- lists, leniently ---------------------------------------------------------------------------

/** A list that may be a bare array, `{data: [...]}` or `{<noun>: [...]}`; page fields kept. */
export function listOf<T extends z.ZodMiniType>(noun: string, item: T) {
  const shapes = z.union([
    z.array(item),
    z.looseObject({ [noun]: z.array(item) }),
    z.looseObject({ data: z.array(item) }),
  ]);
  return z.pipe(
    shapes,
    z.transform((v: z.output<typeof shapes>): { items: z.infer<T>[]; hasMore?: boolean } => {
      if (Array.isArray(v)) return { items: v as z.infer<T>[] };
      const rec = v as Record<string, unknown>;
      const items = (rec[noun] ?? rec.data) as z.infer<T>[];
      const hasMore = typeof rec.has_more === 'boolean' ? rec.has_more : undefined;
      return { items, hasMore };
    }),
  );
}
