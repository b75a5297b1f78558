// Every record the sandbox keeps, defined once as a zod schema; the TypeScript types are derived
// from them. The store writes these records to SQLite as JSON and checks them when it loads.
// Amounts and memos appear only sealed (AES-GCM under the sandbox key) or encrypted to a reader's
// viewing key, never in plaintext.
import * as z from 'zod/mini';
import { EVENT_TYPES } from '../domain/events.js';

/** Epoch milliseconds on the sandbox clock. */
const ms = z.int();

export const ACCOUNT_TYPES = ['personal', 'business', 'agent'] as const;
export const KYC_STATUSES = ['unverified', 'pending', 'verified', 'enhanced'] as const;
/** An agent's status (sandbox decision: the spec names only `active`). */
export const AGENT_STATUSES = ['active', 'suspended'] as const;
export const TRANSFER_STATUSES = ['pending', 'confirmed', 'failed'] as const;
/** Stored statuses; `expired` is never stored: a pending one past `expires_at` reads expired (agents.ts). */
export const HELD_STATUSES = ['pending_approval', 'approved', 'rejected'] as const;

export const AccountRecord = z.object({
  account_id: z.string(),
  handle: z.string(),
  type: z.enum(ACCOUNT_TYPES),
  /** Chain address, 0x + 40 lowercase hex. */
  public_key: z.string(),
  kyc_status: z.enum(KYC_STATUSES),
  /** Whether the wallet supports confidential tokens. */
  confidential_ready: z.boolean(),
  created_at: ms,
  /** The X25519 viewing public key (the secret half is never stored). */
  viewing_public_key: z.optional(z.string()),
  /** Agents only: the owning personal or business account. */
  parent_account_id: z.optional(z.string()),
  /** Agents only. */
  status: z.optional(z.enum(AGENT_STATUSES)),
});
export type Account = z.infer<typeof AccountRecord>;
export type AccountType = Account['type'];
export type KycStatus = Account['kyc_status'];
export type AgentStatus = (typeof AGENT_STATUSES)[number];

export const ApiKeyRecord = z.object({
  key_id: z.string(),
  name: z.string(),
  account_id: z.string(),
  /** SHA-256 of the key, hex. The key itself is never stored. */
  hash: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  /** Last four characters of the key. */
  hint: z.string(),
  created_at: ms,
  last_used_at: z.nullable(ms),
  request_count: z.int().check(z.nonnegative()),
  revoked_at: z.nullable(ms),
});
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

/** Amount (minor units) and memo of one transfer, encrypted to one reader's viewing key. */
export const ReaderCiphertexts = z.object({ amount_ciphertext: z.string(), memo_ciphertext: z.optional(z.string()) });
export type ReaderCiphertexts = z.infer<typeof ReaderCiphertexts>;

export const TransferRecord = z.object({
  transfer_id: z.string(),
  from_account_id: z.string(),
  /** Sender handle. */
  from: z.string(),
  /** Recipient exactly as given in the request. */
  to: z.string(),
  /** The recipient's sandbox account, when it is one (by handle or by its address). */
  to_account_id: z.nullable(z.string()),
  /** The recipient's chain address, lowercase. */
  to_address: z.string(),
  asset: z.string(),
  confidential: z.boolean(),
  status: z.enum(TRANSFER_STATUSES),
  tx_hash: z.string(),
  created_at: ms,
  /** When the chain decides the transfer (created_at + block time). */
  settles_at: ms,
  confirmed_at: z.nullable(ms),
  failed_at: z.nullable(ms),
  /** AES-256-GCM under the sandbox key, bound to the transfer id. Never plaintext. */
  amount_sealed: z.string(),
  memo_sealed: z.nullable(z.string()),
  /** By reader account id. */
  reader_ciphertexts: z.optional(z.record(z.string(), ReaderCiphertexts)),
});
export type Transfer = z.infer<typeof TransferRecord>;
export type TransferStatus = Transfer['status'];

const policyLimit = z.optional(z.nullable(z.union([z.number().check(z.nonnegative()), z.string()])));
export const SpendPolicyRecord = z.object({
  policy_id: z.string(),
  agent_account_id: z.string(),
  /** As validated by src/domain/policy.ts. */
  fields: z.object({
    daily_limit_usdc: policyLimit,
    per_transaction_limit_usdc: policyLimit,
    hitl_threshold_usdc: policyLimit,
    allowed_recipients: z.optional(z.nullable(z.array(z.string()))),
    assets: z.optional(z.nullable(z.array(z.string()))),
    active_hours: z.optional(z.nullable(z.string())),
    /** Beyond the spec (DESIGN.md "Quorum"): 1 to 5; absent is 1. */
    approvals_required: z.optional(z.nullable(z.int())),
  }),
  created_at: ms,
  updated_at: ms,
});
export type SpendPolicyRecord = z.infer<typeof SpendPolicyRecord>;

/**
 * One owner key's approval of a held transaction. The key's id is its identity (names may repeat);
 * its name and the owner's handle are what the resource shows.
 */
export const ApprovalRecord = z.object({ key_id: z.string(), key_name: z.string(), account: z.string(), at: ms });
export type Approval = z.infer<typeof ApprovalRecord>;

/** An agent transaction above its policy's HITL threshold, waiting for a human. */
export const HeldRecord = z.object({
  transaction_id: z.string(),
  agent_account_id: z.string(),
  owner_account_id: z.string(),
  /** Agent handle. */
  agent: z.string(),
  /** Recipient exactly as given. */
  to: z.string(),
  asset: z.string(),
  confidential: z.boolean(),
  requested_at: ms,
  expires_at: ms,
  status: z.enum(HELD_STATUSES),
  decided_at: z.nullable(ms),
  /** Set when approved: the transfer it created. */
  transfer_id: z.nullable(z.string()),
  /** Sealed under the sandbox key, never plaintext. */
  amount_sealed: z.string(),
  memo_sealed: z.nullable(z.string()),
  /** Amount (minor units) and memo encrypted to the OWNER's viewing key at hold time. */
  amount_ciphertext: z.optional(z.string()),
  memo_ciphertext: z.optional(z.string()),
  /** The same, encrypted to the AGENT's own viewing key (held before this existed: absent). */
  agent_ciphertexts: z.optional(ReaderCiphertexts),
  /** The policy rule that held it, and the threshold it was above then (a policy limit, JSON number). */
  rule: z.optional(z.string()),
  hitl_threshold_usdc: z.optional(z.number()),
  /** Who approved or rejected it: the deciding key's name and the deciding account's handle. */
  decided_by: z.optional(z.object({ key_name: z.string(), account: z.string() })),
  /** A rejection's reason, when one was given. */
  reason: z.optional(z.string()),
  /**
   * Distinct owner keys it needs, fixed when it was held (a later policy change does not move it);
   * absent on one held before quorums existed: 1.
   */
  approvals_required: z.optional(z.int().check(z.positive())),
  /** The approvals so far, oldest first (absent on one held before quorums existed). */
  approvals: z.optional(z.array(ApprovalRecord)),
});
export type HeldTransaction = z.infer<typeof HeldRecord>;
export type DecidedBy = NonNullable<HeldTransaction['decided_by']>;
/** The key that approves or rejects: its id (its identity), its name and the owner's handle. */
export type Approver = DecidedBy & { key_id: string };

export const IdempotencyRecord = z.object({
  scope: z.string(),
  key: z.string(),
  /** SHA-256 of method, path and the canonical body: the body itself is not kept. */
  request_hash: z.string(),
  status: z.int(),
  /** The serialized first answer (answers never carry amounts), without any field shown once. */
  body: z.string(),
  /**
   * The whole first answer sealed under the sandbox key, when it carried a field shown once (a
   * secret): what a replay answers. Bound to scope and key (seal-contexts.ts).
   */
  answer_sealed: z.optional(z.string()),
  created_at: ms,
});
export type IdempotencyRecord = z.infer<typeof IdempotencyRecord>;

/** A balance as stored: sealed, with the version of its viewing-key ciphertext. */
export const BalanceRecord = z.object({
  account_id: z.string(),
  asset: z.string(),
  /** AES-256-GCM under the sandbox key, bound to account and asset. */
  sealed: z.string(),
  /** Goes up at every change; a decryption proof opens only the current version. */
  version: z.int().check(z.nonnegative()),
  /** The balance encrypted to the account's viewing key, for `version` (made when first read). */
  ciphertext: z.optional(z.string()),
});
export type BalanceRecord = z.infer<typeof BalanceRecord>;

// ---- webhooks -----------------------------------------------------------------------------------

const eventType = z.enum(EVENT_TYPES);

/** A subscription as stored: its signing secret sealed under the sandbox key. */
export const SubscriptionRecord = z.object({
  webhook_id: z.string(),
  account_id: z.string(),
  url: z.string(),
  events: z.array(eventType),
  secret_sealed: z.string(),
  created_at: ms,
  // Beyond the spec (docs/webhooks.md, Delivery limits); each absent while it does not apply.
  /** `disabled` once every delivery failed for 24 h; absent while active. */
  status: z.optional(z.literal('disabled')),
  /** When the first attempt that failed since the last success was made. */
  failing_since: z.optional(ms),
  /** When it was disabled. */
  disabled_at: z.optional(ms),
});
export type SubscriptionRecord = z.infer<typeof SubscriptionRecord>;

/** An event as fired for one account (each side of a transfer gets its own). */
export const EventRecord = z.object({
  event_id: z.string(),
  type: eventType,
  /** The account concerned (for an agent's events, the agent). */
  account_id: z.string(),
  /** The accounts whose subscriptions receive it: the account concerned and its parent. */
  audience: z.array(z.string()),
  occurred_at: ms,
  /** The payload as JSON text; `timestamp` is replaced by the signing time at each attempt. */
  body: z.string(),
});
export type StoredEvent = z.infer<typeof EventRecord>;

/** One event on its way to one subscription. Lives until it succeeds or is exhausted. */
export const DeliveryRecord = z.object({
  delivery_id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event: eventType,
  body: z.string(),
  /** Attempts made so far. */
  attempts: z.int().check(z.nonnegative()),
  /** When the first attempt was made (start of the 24 h window); null before it. */
  first_attempt_at: z.nullable(ms),
  /** When the next attempt is due (sandbox clock). */
  due_at: ms,
  /** The next attempt is the last one (end of the 24 h window). */
  final: z.boolean(),
  /** A replay through POST /v1/webhooks/{id}/replay/{event_id}. */
  replay: z.boolean(),
});
export type Delivery = z.infer<typeof DeliveryRecord>;

export const DELIVERY_STATES = ['succeeded', 'retrying', 'exhausted'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One attempt, as GET /v1/webhooks/{id}/deliveries shows it. */
export const AttemptRecord = z.object({
  delivery_id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event: eventType,
  /** 1-based; 0 only in the record of a delivery ended before any attempt (dropped at the cap, or disabled). */
  attempt: z.int().check(z.nonnegative()),
  /** null when no HTTP answer arrived (timeout, connection error). */
  status_code: z.nullable(z.int()),
  error: z.nullable(z.string()),
  duration_ms: z.number().check(z.nonnegative()),
  attempted_at: ms,
  next_retry_at: z.nullable(ms),
  retry_count: z.int().check(z.nonnegative()),
  state: z.enum(DELIVERY_STATES),
  replay: z.boolean(),
});
export type AttemptRecord = z.infer<typeof AttemptRecord>;
