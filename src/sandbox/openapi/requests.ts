// The request bodies the sandbox reads, as zod schemas for the OpenAPI document. The sandbox
// checks bodies by hand (handlers/validate.ts: each failure a 400 naming the field and the rule);
// these restate those rules from the same constants. Unknown fields are ignored, so objects are
// open.
import * as z from 'zod/mini';
import { AGENT_NAME_RE } from '../../domain/agent-name.js';
import { KNOWN_ASSETS } from '../../domain/assets.js';
import { EVENT_TYPES } from '../../domain/events.js';
import { HANDLE_RE } from '../../domain/handle.js';
import { APPROVALS_REQUIRED_MAX, APPROVALS_REQUIRED_MIN, MAX_LIMIT } from '../../domain/policy.js';
import { REJECT_REASON_MAX } from '../../domain/reject-reason.js';
import { MAX_ADVANCE_MS } from '../defaults.js';

/** An @handle (src/domain/handle.ts); JSON Schema patterns have no flags, so its `i` is spelt out. */
const HANDLE = new RegExp(HANDLE_RE.source.replaceAll('a-z', 'A-Za-z'));
/** A decimal string: digits, at most one point, at most the asset's decimals (6). Never a JSON number. */
const amount = z.string().check(z.regex(/^\d+(\.\d{1,6})?$/));
const asset = z.enum(KNOWN_ASSETS as [string, ...string[]]);
/** A limit: a JSON number (or a decimal string) from 0 to one billion, at most 6 decimals. */
const limit = z.union([z.number().check(z.gte(0), z.lte(MAX_LIMIT)), z.string().check(z.regex(/^\d+(\.\d{1,6})?$/))]);
const policyFields = {
  daily_limit_usdc: limit,
  per_transaction_limit_usdc: limit,
  allowed_recipients: z.array(z.string()).check(z.maxLength(100)),
  assets: z.array(asset).check(z.maxLength(100)),
  active_hours: z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$/)),
  hitl_threshold_usdc: limit,
  /** Beyond the spec (DESIGN.md "Quorum"). */
  approvals_required: z.int().check(z.gte(APPROVALS_REQUIRED_MIN), z.lte(APPROVALS_REQUIRED_MAX)),
};
type PolicyField = keyof typeof policyFields;
const optionalFields = (nullable: boolean) =>
  Object.fromEntries(Object.entries(policyFields).map(([k, v]) => [k, z.optional(nullable ? z.nullable(v) : v)])) as {
    [K in PolicyField]: z.ZodMiniOptional<(typeof policyFields)[K]>;
  };

const SpendPolicyInput = z.looseObject(optionalFields(false));

export const REQUEST_SCHEMAS = {
  TransferRequest: z.looseObject({
    to: z.string(),
    amount,
    asset: z.optional(asset),
    confidential: z.optional(z.boolean()),
    memo: z.optional(z.string()),
  }),
  BalancesRequest: z.looseObject({ decryption_proof: z.optional(z.string()) }),
  AgentCreateRequest: z.looseObject({ name: z.string().check(z.regex(AGENT_NAME_RE)), spend_policy: SpendPolicyInput }),
  SpendPolicyInput,
  /** A patch: only the fields sent change; `null` clears a field (no restriction). */
  SpendPolicyPatch: z.looseObject(optionalFields(true)),
  RejectRequest: z.looseObject({ reason: z.optional(z.string().check(z.minLength(1), z.maxLength(REJECT_REASON_MAX))) }),
  WebhookCreateRequest: z.looseObject({
    url: z.string().check(z.maxLength(2048)),
    events: z.array(z.enum(EVENT_TYPES)).check(z.minLength(1)),
  }),
  FundRequest: z.looseObject({ handle: z.string().check(z.regex(HANDLE)), amount, asset: z.optional(asset) }),
  KeyCreateRequest: z.looseObject({ account: z.string().check(z.regex(HANDLE)), name: z.optional(z.string().check(z.maxLength(64))) }),
  ClockAdvanceRequest: z.looseObject({ ms: z.int().check(z.gte(0), z.lte(MAX_ADVANCE_MS)) }),
  TriggerRequest: z.looseObject({ event: z.enum(EVENT_TYPES), account: z.optional(z.string().check(z.regex(HANDLE))) }),
} satisfies Record<string, z.ZodMiniType>;

export type RequestName = keyof typeof REQUEST_SCHEMAS;

export const REQUEST_DESCRIPTIONS: Partial<Record<RequestName, string>> = {
  TransferRequest: '`amount` is a decimal string (never a JSON number), more than 0. `confidential` defaults to true, `asset` to USDG; `memo` is at most 256 bytes of UTF-8.',
  BalancesRequest: 'With `decryption_proof` the answer has the amounts it opens; without a body, only which assets are non-zero.',
  SpendPolicyInput: 'Spend policy fields; an omitted one is no restriction. Limits are JSON numbers (a decimal string is accepted). `approvals_required` (beyond the spec): distinct owner keys a held transaction needs, 1 to 5 (omitted: 1).',
  SpendPolicyPatch: 'Any subset of the spend policy fields; `null` clears one.',
  RejectRequest: 'Beyond the spec: an optional reason, kept on the held transaction.',
  WebhookCreateRequest: '`url`: https, or http to a loopback host; no credentials. `events`: at least one event type (duplicates dropped).',
  ClockAdvanceRequest: 'Moves the sandbox clock forward by `ms` and runs what became due.',
  TriggerRequest: 'A sample event through the real webhook engine; `account` defaults to @alice.',
};
