// The sandbox's answers as zod schemas, each made from the schema the tool parses the same answer
// with (src/api/schemas.ts, control-schemas.ts), narrowed to what the sandbox always sends: the
// fields it never omits are required, statuses are the values it can take. The OpenAPI document's
// components are generated from these (json-schema.ts), so the document and the tool share one
// definition. A field the sandbox sends must be declared here (the conformance test refuses any
// other, test/sandbox/openapi-conformance.test.ts).
import * as z from 'zod/mini';
import * as C from '../../api/control-schemas.js';
import * as S from '../../api/schemas.js';
import { ERROR_CODES, ERROR_REASONS, type ErrorCode as Code } from './codes.js';

const AGENT_STATUSES = ['active', 'suspended'] as const;
/** Beyond the spec (DESIGN.md "Delivery limits"): a subscription whose deliveries all failed for 24 h is disabled. */
const WEBHOOK_STATUSES = ['active', 'disabled'] as const;

const Account = z.required(S.AccountSchema, { created_at: true });

/** Without a proof: which assets are non-zero, each balance's ciphertext to the viewing key. */
const BalanceHidden = z.omit(z.required(S.BalanceEntrySchema, { nonzero: true }), { amount: true });
/** With a valid proof: the amounts it opens. */
const BalanceOpened = z.pick(z.required(S.BalanceEntrySchema, { amount: true }), { asset: true, amount: true });

const Transfer = z.required(S.TransferSchema, { from: true, tx_hash: true, asset: true });
const TransferPage = z.extend(S.TransferPageSchema, { transfers: z.array(Transfer) });
/** The 202 of an agent's transfer held for approval: no transfer exists yet. */
const HeldTransfer = z.extend(z.required(S.HeldTransactionSchema, { agent: true, to: true, asset: true, requested_at: true, approvals_required: true, approvals: true }), {
  status: z.literal('pending_approval'),
});

const Agent = z.extend(z.omit(z.required(S.AgentSchema, { type: true, created_at: true }), { decryption_key: true }), { status: z.enum(AGENT_STATUSES) });
/** The create answer: the agent, with its decryption key shown once. */
const AgentCreated = z.extend(Agent, { decryption_key: z.optional(z.string()) });

const Pending = z.required(S.PendingTransactionSchema, { asset: true, approvals_required: true, approvals: true });
const HeldResource = z.extend(z.required(S.HeldResourceSchema, { asset: true, rule: true, approvals_required: true, approvals: true }), { status: z.enum(S.HELD_STATUSES) });
/** What every view of a held transaction carries (the quorum, beyond the spec, always: DESIGN.md "Quorum"). */
const QUORUM = { approvals_required: true, approvals: true } as const;
const Approved = z.extend(z.required(S.HeldResourceSchema, { asset: true, rule: true, decided_at: true, decided_by: true, transfer_id: true, ...QUORUM }), { status: z.literal('approved') });
/** An approval short of the quorum: recorded, the transaction still pending, no transfer yet. */
const ApprovalRecorded = z.extend(z.omit(z.required(S.HeldResourceSchema, { asset: true, rule: true, ...QUORUM }), { decided_at: true, decided_by: true, transfer_id: true, reason: true }), {
  status: z.literal('pending_approval'),
});
const Rejected = z.extend(z.omit(z.required(S.HeldResourceSchema, { asset: true, rule: true, decided_at: true, decided_by: true, ...QUORUM }), { transfer_id: true }), {
  status: z.literal('rejected'),
});

const Webhook = z.extend(z.omit(S.WebhookSchema, { secret: true }), { status: z.optional(z.enum(WEBHOOK_STATUSES)) });
/** The create answer: the signing secret with it (an Idempotency-Key replay of the create may answer without it). */
const WebhookCreated = z.extend(Webhook, { secret: z.optional(z.string()) });
const Delivery = z.required(S.DeliverySchema, { webhook_id: true, replay: true });

/** Every code the sandbox answers (codes.ts); each response narrows it to its own. */
const ErrorCode = z.enum(Object.keys(ERROR_CODES) as [Code, ...Code[]]);
const ErrorBody = z.looseObject({
  error: z.extend(S.ErrorBodySchema.shape.error, { code: ErrorCode, reason: z.optional(z.enum(ERROR_REASONS)) }),
});

/**
 * The named schemas of the document's components, by name. Schemas used inside others are named
 * too, so the document refers to them instead of repeating them.
 */
export const ANSWER_SCHEMAS = {
  Account,
  BalanceHidden,
  BalanceOpened,
  Balances: z.union([z.looseObject({ balances: z.array(BalanceHidden) }), z.looseObject({ balances: z.array(BalanceOpened) })]),
  AgentBalances: z.looseObject({ balances: z.array(BalanceHidden) }),
  Transfer,
  TransferPage,
  HeldTransfer,
  Agent,
  AgentCreated,
  AgentList: z.extend(S.AgentListSchema, { agents: z.array(Agent) }),
  SpendPolicy: S.SpendPolicySchema,
  PendingTransaction: Pending,
  PendingList: z.extend(S.PendingListSchema, { pending: z.array(Pending) }),
  DecidedBy: S.DecidedBySchema,
  Approval: S.ApprovalSchema,
  HeldTransaction: HeldResource,
  HeldPage: z.extend(S.HeldPageSchema, { transactions: z.array(HeldResource) }),
  ApprovedTransaction: Approved,
  ApprovalRecorded,
  ApprovalAnswer: z.union([Approved, ApprovalRecorded]),
  RejectedTransaction: Rejected,
  Webhook,
  WebhookCreated,
  WebhookList: z.extend(S.WebhookListSchema, { webhooks: z.array(Webhook) }),
  WebhookDeleted: S.WebhookDeletedSchema,
  QueuedDelivery: S.QueuedDeliverySchema,
  Delivery,
  DeliveryList: z.extend(S.DeliveryListSchema, { deliveries: z.array(Delivery) }),
  ErrorCode,
  Error: ErrorBody,
  Health: C.HealthSchema,
  SeededAccount: C.SeededAccountSchema,
  Reset: C.ResetSchema,
  Fund: C.FundSchema,
  ApiKey: C.ApiKeySchema,
  KeyCreated: C.KeyCreatedSchema,
  KeyList: C.KeyListSchema,
  Clock: C.ClockSchema,
  Trigger: C.TriggerSchema,
  Export: C.ExportSchema,
} satisfies Record<string, z.ZodMiniType>;

export type AnswerName = keyof typeof ANSWER_SCHEMAS;

/** One line on each component, for readers of the document. */
export const ANSWER_DESCRIPTIONS: Partial<Record<AnswerName, string>> = {
  Account: 'The authenticated account. `viewing_public_key` is a sandbox extension.',
  BalanceHidden: 'A balance without a proof: whether it is non-zero, and its ciphertext to the viewing key (sandbox extension) with the balance version it is bound to.',
  BalanceOpened: 'A balance opened by a valid decryption proof.',
  Balances: 'Without a proof, every entry is a BalanceHidden; with one, every entry is a BalanceOpened.',
  AgentBalances: "An agent's balances as its owner reads them (beyond the spec): ciphertexts to the reader's viewing key.",
  Transfer: 'A transfer: never an amount. `asset`, `amount_ciphertext` and `memo_ciphertext` are sandbox extensions (ciphertexts to the reader). `confirmed_at` once confirmed.',
  TransferPage: 'A page of transfers, newest first.',
  HeldTransfer: "An agent's transfer held for approval (202): no transfer exists until it is approved.",
  Agent: 'An agent account. `status` is `active` or (sandbox extension) `suspended`.',
  AgentCreated: 'The created agent, with its decryption key shown once.',
  SpendPolicy: 'A spend policy; an omitted field is no restriction. `daily_spent_ciphertext` and `daily_spent_day` are sandbox extensions.',
  HeldTransaction: 'A held agent transaction as a resource (beyond the spec). `decided_at`/`decided_by` once approved or rejected (`decided_by`: the key whose approval completed the quorum, or the rejecting key), `transfer_id` once approved, `reason` when a rejection gave one; `approvals_required` (fixed when held) and `approvals` (newest last) always.',
  Approval: 'One owner API key\'s approval (beyond the spec): the key\'s name, the owner\'s handle, when.',
  ApprovedTransaction: 'The answer of the approval that completes the quorum: the held transaction, approved, with the transfer it made.',
  ApprovalRecorded: 'The answer of an approval short of the quorum (beyond the spec): recorded in `approvals`, the transaction still pending, no transfer yet.',
  ApprovalAnswer: 'The answer of approve: approved with its transfer (the quorum reached), or still pending with this approval recorded.',
  RejectedTransaction: 'The answer of reject: the held transaction, rejected.',
  Webhook: 'A webhook subscription (never its secret). `status` is beyond the spec: `disabled` after 24 h of failed deliveries.',
  WebhookCreated: 'The created subscription with its signing secret, shown once.',
  Delivery: 'One delivery attempt. `status_code` is omitted when no HTTP answer came, `error` when it succeeded, `next_retry_at` when no retry is due.',
  QueuedDelivery: 'A delivery queued (by a replay or a trigger): no attempt made yet.',
  ErrorCode: 'Every error code the sandbox answers (`x-error-codes` says when, and which are beyond the spec).',
  Error: 'The one error envelope. `reason` with policy_violation (the rule) and with a suspended agent\'s forbidden (`agent_suspended`), `field` with invalid_policy (and some invalid_request), `status` with transaction_already_decided.',
  Export: 'The whole sandbox state, without sealed values, ciphertexts, key hashes or secrets. Times are epoch milliseconds.',
};
