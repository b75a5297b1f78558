// Every error code the sandbox answers, with its status, whether the service's specification
// names it (the rest are beyond the spec: DESIGN.md "Error codes beyond the spec", docs/sandbox.md)
// and when it is answered. The OpenAPI document lists them (`x-error-codes`, the ErrorCode enum);
// a test holds this list to the codes src/sandbox/ can throw.
import type { DenyReason } from '../../domain/policy.js';

export interface ErrorCodeInfo {
  status: number;
  /** Named by the service's specification. */
  spec: boolean;
  when: string;
}

export const ERROR_CODES = {
  invalid_request: { status: 400, spec: true, when: 'a malformed body, query, header or request; a missing or wrong field (the message names it)' },
  invalid_policy: { status: 400, spec: true, when: 'spend policy fields fail validation (`field` names the field)' },
  unauthorized: { status: 401, spec: true, when: 'a missing, malformed, unknown, revoked or live API key; a missing or wrong admin token on a control route' },
  insufficient_balance: { status: 402, spec: true, when: 'the sender (or, on approve, the agent) lacks enough of the asset' },
  kyc_required: { status: 403, spec: true, when: 'the account has not completed identity verification' },
  not_agent_owner: { status: 403, spec: true, when: 'the caller does not own an agent with that id (an unknown id answers the same)' },
  forbidden: { status: 403, spec: false, when: "an agent's own key on an owner-only action (creating agents, approving, rejecting, suspending itself), or, with `reason` `agent_suspended`, a suspended agent's key moving funds" },
  policy_violation: { status: 403, spec: false, when: "the agent's spend policy denies the transfer (`reason` says which rule)" },
  forbidden_origin: { status: 403, spec: false, when: 'the request carries an Origin that is not a loopback origin' },
  recipient_not_found: { status: 404, spec: true, when: 'no account has the given handle' },
  transaction_not_found: { status: 404, spec: true, when: 'no held transaction with that id for the caller' },
  transfer_not_found: { status: 404, spec: false, when: 'no transfer with that id for the caller' },
  webhook_not_found: { status: 404, spec: false, when: 'no webhook subscription with that id for the caller' },
  event_not_found: { status: 404, spec: false, when: 'no event with that id for the caller' },
  account_not_found: { status: 404, spec: false, when: 'no sandbox account has the handle (control API)' },
  key_not_found: { status: 404, spec: false, when: 'no API key with that id (control API)' },
  not_found: { status: 404, spec: false, when: 'no such endpoint' },
  method_not_allowed: { status: 405, spec: false, when: 'the path exists under other methods (listed in `Allow`)' },
  request_timeout: { status: 408, spec: false, when: 'the headers or the whole request did not arrive in time' },
  transaction_expired: { status: 409, spec: true, when: 'the approval window of the held transaction has passed' },
  already_approved: { status: 409, spec: false, when: 'this API key already approved the held transaction, which waits for other owner keys (its quorum, `approvals_required`): nothing changed' },
  transaction_already_decided: { status: 409, spec: false, when: 'the held transaction was already approved or rejected (`status` says which)' },
  agent_name_taken: { status: 409, spec: false, when: 'the owner already has an agent of that name' },
  idempotency_key_reused: { status: 409, spec: false, when: 'the Idempotency-Key was used with a different request' },
  payload_too_large: { status: 413, spec: false, when: 'a body over 64 KiB (the connection is closed)' },
  unsupported_media_type: { status: 415, spec: false, when: 'a body sent without a JSON Content-Type' },
  expectation_failed: { status: 417, spec: false, when: 'an Expect header other than 100-continue' },
  invalid_host: { status: 421, spec: false, when: 'the Host header is not a loopback name' },
  recipient_not_confidential_ready: { status: 422, spec: true, when: 'the recipient wallet does not support confidential tokens (retry with "confidential": false)' },
  decryption_proof_invalid: { status: 422, spec: true, when: 'the decryption proof does not open the current balance ciphertexts' },
  request_header_fields_too_large: { status: 431, spec: false, when: 'request headers over 16 KiB' },
  internal_error: { status: 500, spec: false, when: 'a sandbox bug (its log has the details)' },
  state_locked: { status: 503, spec: false, when: 'another program held the database\'s write lock for longer than the busy timeout (5 s): nothing changed, not remembered for the Idempotency-Key; retry after `Retry-After`' },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The `reason` values of a 403 policy_violation (src/domain/policy.ts DenyReason). */
export const POLICY_VIOLATION_REASONS = ['asset_not_allowed', 'recipient_not_allowed', 'outside_active_hours', 'per_transaction_limit', 'daily_limit'] as const satisfies readonly DenyReason[];
// Every DenyReason is listed: this fails to compile when the policy engine gains one.
const everyReason: [Exclude<DenyReason, (typeof POLICY_VIOLATION_REASONS)[number]>] extends [never] ? true : never = true;
void everyReason;

/** Every `reason` an error carries: a policy_violation's rule, or a 403 forbidden's `agent_suspended` (src/sandbox/agents.ts). */
export const ERROR_REASONS = [...POLICY_VIOLATION_REASONS, 'agent_suspended'] as const;
