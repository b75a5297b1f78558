// What the document says of each route the sandbox serves, keyed `METHOD /path` as the router
// registers it: its summary, query and body, the answers it gives on success and the error codes
// its handler can answer. What every route can answer (the pipeline's own errors: a bad Host,
// a foreign Origin, a body too large or not JSON, a missing key, a reused Idempotency-Key) is
// added by document.ts from the route's authentication and idempotency. A route the router
// serves with no entry here, or an entry with no route, fails the document's build.
import { HELD_STATUSES, TRANSFER_STATUSES } from '../../api/schemas.js';
import { OFFSET_MAX, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../../domain/paging.js';
import { TIMESTAMP_YEARS } from '../../domain/timestamp.js';
import type { AnswerName } from './answers.js';
import type { ErrorCode } from './codes.js';
import type { RequestName } from './requests.js';

export type Tag = 'Transfers' | 'Accounts' | 'Agents' | 'Held transactions' | 'Webhooks' | 'Sandbox control' | 'Contract';

export const TAGS: Record<Tag, string> = {
  Transfers: 'Confidential transfers: never an amount in an answer.',
  Accounts: 'The authenticated account and its balances.',
  Agents: 'Agent accounts and their spend policies.',
  'Held transactions': 'Agent transactions held for human approval.',
  Webhooks: 'Subscriptions, their delivery log and replays.',
  'Sandbox control': 'The control API under /_sandbox/ (beyond the spec): the admin token of this sandbox run, except health.',
  Contract: 'This document.',
};

export interface QueryParam {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

export interface OperationDoc {
  operationId: string;
  summary: string;
  tag: Tag;
  /** Not in the service's specification: a sandbox extension, the control API, this document. */
  beyondSpec?: true;
  description?: string;
  query?: readonly QueryParam[];
  body?: { schema: RequestName; required: boolean };
  /** Success statuses and what each answers (`Document`: this OpenAPI document). */
  ok: Readonly<Record<number, AnswerName | 'Document'>>;
  /** Error codes of this route's own (its handler and the operations behind it). */
  errors?: readonly ErrorCode[];
}

const limit = (dflt: number, max: number): QueryParam => ({
  name: 'limit',
  description: `Results per page, 1 to ${max}.`,
  schema: { type: 'integer', minimum: 1, maximum: max, default: dflt },
});
const offset: QueryParam = {
  name: 'offset',
  description: `How many results to skip, 0 to ${OFFSET_MAX} (2^53 - 1).`,
  schema: { type: 'integer', minimum: 0, maximum: OFFSET_MAX, default: 0 },
};
const time = (name: string, rule: string): QueryParam => ({
  name,
  description: `An ISO 8601 timestamp with an offset (or a date), ${TIMESTAMP_YEARS}: only transfers created ${rule} it.`,
  schema: { type: 'string' },
});
const TRANSFER_QUERY = [
  limit(PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX),
  offset,
  { name: 'status', description: 'Only transfers in this status.', schema: { type: 'string', enum: [...TRANSFER_STATUSES] } },
  time('from', 'after'),
  time('to', 'before'),
];

const AGENT_ID = 'The agent (an unknown id or another account\u2019s agent answers 403 not_agent_owner).';

export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  // ---- transfers ----
  'POST /v1/transfers': {
    operationId: 'createTransfer', summary: 'Create a transfer', tag: 'Transfers',
    description: "201 with the pending transfer; 202 when an agent's spend policy holds it for approval (no transfer exists yet).",
    body: { schema: 'TransferRequest', required: true },
    ok: { 201: 'Transfer', 202: 'HeldTransfer' },
    errors: ['insufficient_balance', 'kyc_required', 'forbidden', 'policy_violation', 'recipient_not_found', 'recipient_not_confidential_ready'],
  },
  'GET /v1/transfers': {
    operationId: 'listTransfers', summary: 'List transfers, newest first', tag: 'Transfers',
    query: TRANSFER_QUERY, ok: { 200: 'TransferPage' },
  },
  'GET /v1/transfers/:id': {
    operationId: 'getTransfer', summary: 'Get a transfer', tag: 'Transfers',
    ok: { 200: 'Transfer' }, errors: ['transfer_not_found'],
  },
  // ---- accounts ----
  'GET /v1/accounts/me': { operationId: 'getAccount', summary: 'The authenticated account', tag: 'Accounts', ok: { 200: 'Account' } },
  'GET /v1/accounts/me/balances': {
    operationId: 'getBalances', summary: 'Balances: which are non-zero, or the amounts a decryption proof opens', tag: 'Accounts',
    description: 'A GET that may carry a JSON body with `decryption_proof`.',
    body: { schema: 'BalancesRequest', required: false },
    ok: { 200: 'Balances' }, errors: ['kyc_required', 'decryption_proof_invalid'],
  },
  // ---- agents ----
  'POST /v1/accounts/me/agents': {
    operationId: 'createAgent', summary: 'Create an agent account', tag: 'Agents',
    body: { schema: 'AgentCreateRequest', required: true },
    ok: { 201: 'AgentCreated' }, errors: ['invalid_policy', 'forbidden', 'agent_name_taken'],
  },
  'GET /v1/accounts/me/agents': { operationId: 'listAgents', summary: "The account's agents", tag: 'Agents', ok: { 200: 'AgentList' } },
  'GET /v1/agents/:account_id/spend-policy': {
    operationId: 'getSpendPolicy', summary: "An agent's spend policy", tag: 'Agents', description: AGENT_ID,
    ok: { 200: 'SpendPolicy' }, errors: ['not_agent_owner'],
  },
  'PATCH /v1/agents/:account_id/spend-policy': {
    operationId: 'patchSpendPolicy', summary: "Change some of an agent's spend policy fields", tag: 'Agents', description: AGENT_ID,
    body: { schema: 'SpendPolicyPatch', required: true },
    ok: { 200: 'SpendPolicy' }, errors: ['invalid_policy', 'not_agent_owner'],
  },
  'POST /v1/agents/:account_id/suspend': {
    operationId: 'suspendAgent', summary: 'Suspend an agent: it moves no funds until resumed', tag: 'Agents', beyondSpec: true,
    ok: { 200: 'Agent' }, errors: ['not_agent_owner', 'forbidden'],
  },
  'POST /v1/agents/:account_id/resume': {
    operationId: 'resumeAgent', summary: 'Resume a suspended agent', tag: 'Agents', beyondSpec: true,
    ok: { 200: 'Agent' }, errors: ['not_agent_owner', 'forbidden'],
  },
  'GET /v1/agents/:account_id/balances': {
    operationId: 'getAgentBalances', summary: "An agent's balances, encrypted to the reader", tag: 'Agents', beyondSpec: true,
    ok: { 200: 'AgentBalances' }, errors: ['not_agent_owner'],
  },
  'GET /v1/agents/:account_id/transfers': {
    operationId: 'listAgentTransfers', summary: "An agent's transfers, as GET /v1/transfers", tag: 'Agents', beyondSpec: true,
    query: TRANSFER_QUERY, ok: { 200: 'TransferPage' }, errors: ['not_agent_owner'],
  },
  // ---- held transactions ----
  'GET /v1/agents/transactions/pending': {
    operationId: 'listPending', summary: 'Held transactions waiting for approval, oldest first', tag: 'Held transactions',
    ok: { 200: 'PendingList' },
  },
  'GET /v1/agents/transactions': {
    operationId: 'listHeldTransactions', summary: 'Every held transaction the caller may read, newest first', tag: 'Held transactions', beyondSpec: true,
    query: [limit(PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX), offset, { name: 'status', description: 'Only held transactions in this status (as read now).', schema: { type: 'string', enum: [...HELD_STATUSES] } }],
    ok: { 200: 'HeldPage' },
  },
  'GET /v1/agents/transactions/:transaction_id': {
    operationId: 'getHeldTransaction', summary: 'A held transaction (its owner or its agent)', tag: 'Held transactions', beyondSpec: true,
    ok: { 200: 'HeldTransaction' }, errors: ['transaction_not_found'],
  },
  'POST /v1/agents/transactions/:transaction_id/approve': {
    operationId: 'approveHeldTransaction', summary: "Approve a held transaction: the transfer is made at its quorum's last approval", tag: 'Held transactions',
    description: 'Beyond the spec (DESIGN.md "Quorum"): a policy may require up to 5 approvals, each by a distinct owner API key. An approval short of the quorum answers 200 with the transaction still `pending_approval` and the approval recorded in `approvals`; the one that reaches it makes the transfer. Idempotency-Keys are remembered per API key on this route.',
    ok: { 200: 'ApprovalAnswer' },
    errors: ['forbidden', 'transaction_not_found', 'recipient_not_found', 'transaction_already_decided', 'transaction_expired', 'already_approved', 'insufficient_balance'],
  },
  'POST /v1/agents/transactions/:transaction_id/reject': {
    operationId: 'rejectHeldTransaction', summary: 'Reject a held transaction: nothing is sent', tag: 'Held transactions',
    description: 'One rejection by any owner key ends it, whatever approvals it had (they stay on the record). Idempotency-Keys are remembered per API key on this route.',
    body: { schema: 'RejectRequest', required: false },
    ok: { 200: 'RejectedTransaction' },
    errors: ['forbidden', 'transaction_not_found', 'transaction_already_decided', 'transaction_expired'],
  },
  // ---- webhooks ----
  'POST /v1/webhooks': {
    operationId: 'createWebhook', summary: 'Subscribe to events', tag: 'Webhooks',
    body: { schema: 'WebhookCreateRequest', required: true }, ok: { 201: 'WebhookCreated' },
  },
  'GET /v1/webhooks': { operationId: 'listWebhooks', summary: 'Subscriptions', tag: 'Webhooks', ok: { 200: 'WebhookList' } },
  'GET /v1/webhooks/:id': {
    operationId: 'getWebhook', summary: 'A subscription', tag: 'Webhooks', beyondSpec: true,
    ok: { 200: 'Webhook' }, errors: ['webhook_not_found'],
  },
  'DELETE /v1/webhooks/:id': {
    operationId: 'deleteWebhook', summary: 'Delete a subscription: pending retries end at once', tag: 'Webhooks',
    ok: { 200: 'WebhookDeleted' }, errors: ['webhook_not_found'],
  },
  'GET /v1/webhooks/:id/deliveries': {
    operationId: 'listDeliveries', summary: 'Delivery attempts, newest first', tag: 'Webhooks',
    query: [limit(100, 1000)], ok: { 200: 'DeliveryList' }, errors: ['webhook_not_found'],
  },
  'POST /v1/webhooks/:id/replay/:event_id': {
    operationId: 'replayEvent', summary: 'Send one event to the subscription again', tag: 'Webhooks',
    ok: { 202: 'QueuedDelivery' }, errors: ['webhook_not_found', 'event_not_found'],
  },
  // ---- the control API ----
  'GET /_sandbox/health': { operationId: 'sandboxHealth', summary: 'Is it up (no token)', tag: 'Sandbox control', beyondSpec: true, ok: { 200: 'Health' } },
  'POST /_sandbox/reset': {
    operationId: 'sandboxReset', summary: 'A fresh seed: every account, key and transfer replaced', tag: 'Sandbox control', beyondSpec: true,
    ok: { 200: 'Reset' },
  },
  'POST /_sandbox/fund': {
    operationId: 'sandboxFund', summary: 'Credit an account (testnet faucet); the amount is not echoed', tag: 'Sandbox control', beyondSpec: true,
    body: { schema: 'FundRequest', required: true }, ok: { 200: 'Fund' }, errors: ['account_not_found'],
  },
  'POST /_sandbox/keys': {
    operationId: 'sandboxCreateKey', summary: 'Create an API key (shown once; an Idempotency-Key replay repeats it)', tag: 'Sandbox control', beyondSpec: true,
    body: { schema: 'KeyCreateRequest', required: true }, ok: { 201: 'KeyCreated' }, errors: ['account_not_found'],
  },
  'GET /_sandbox/keys': {
    operationId: 'sandboxListKeys', summary: 'API key records (never the keys)', tag: 'Sandbox control', beyondSpec: true,
    query: [{ name: 'account', description: "Only this account's keys (an @handle).", schema: { type: 'string' } }],
    ok: { 200: 'KeyList' }, errors: ['account_not_found'],
  },
  'POST /_sandbox/keys/:key_id/revoke': {
    operationId: 'sandboxRevokeKey', summary: 'Revoke an API key, effective at once', tag: 'Sandbox control', beyondSpec: true,
    ok: { 200: 'ApiKey' }, errors: ['key_not_found'],
  },
  'GET /_sandbox/export': { operationId: 'sandboxExport', summary: 'The whole state, without secrets', tag: 'Sandbox control', beyondSpec: true, ok: { 200: 'Export' } },
  'GET /_sandbox/clock': { operationId: 'sandboxClock', summary: 'The sandbox clock', tag: 'Sandbox control', beyondSpec: true, ok: { 200: 'Clock' } },
  'POST /_sandbox/clock/advance': {
    operationId: 'sandboxAdvanceClock', summary: 'Move the clock forward and run what became due', tag: 'Sandbox control', beyondSpec: true,
    body: { schema: 'ClockAdvanceRequest', required: true }, ok: { 200: 'Clock' },
  },
  'POST /_sandbox/trigger': {
    operationId: 'sandboxTrigger', summary: 'Send a sample event to the subscriptions, naming objects made for it', tag: 'Sandbox control', beyondSpec: true,
    description: 'The sample names a transfer, a held transaction of an agent, or an agent and its policy, made for it (docs/sandbox.md, "Trigger"); the answer gives their ids.',
    body: { schema: 'TriggerRequest', required: false }, ok: { 202: 'Trigger' }, errors: ['account_not_found'],
  },
  // ---- this document ----
  'GET /openapi.json': {
    operationId: 'getOpenApiDocument', summary: 'This document (OpenAPI 3.1, no token)', tag: 'Contract', beyondSpec: true,
    ok: { 200: 'Document' },
  },
};
