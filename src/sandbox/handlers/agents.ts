// Agents, spend policies and the approval queue:
//   POST/GET /v1/accounts/me/agents, GET/PATCH /v1/agents/{account_id}/spend-policy,
//   POST /v1/agents/{account_id}/suspend|resume (sandbox extension),
//   GET /v1/agents/transactions/pending, POST /v1/agents/transactions/{id}/approve|reject;
//   GET /v1/agents/transactions[/{id}] (beyond the spec: held.ts).
// The logic lives in ../agents.ts; this file validates requests and shapes answers. No answer
// carries a plaintext amount (held amounts only as ciphertexts to the owner's viewing key).
import { POLICY_FIELDS, validatePolicyFields, type PolicyFields } from '../../domain/policy.js';
import { REJECT_REASON_RULE, rejectReasonFits } from '../../domain/reject-reason.js';
import {
  AGENT_NAME_RE,
  AGENT_NAME_RULE,
  assertNotAgent,
  createAgent,
  decide,
  dailySpentFor,
  patchPolicy,
  pendingFor,
  policyOf,
  setAgentStatus,
} from '../agents.js';
import type { ApiContext, Routes } from '../http/context.js';
import { ApiFault, invalid } from '../faults.js';
import { ok, type Reply } from '../http/respond.js';
import type { Account, AgentStatus, HeldTransaction, SpendPolicyRecord } from '../records.js';
import type { World } from '../world.js';
import { heldResource, registerHeldReads } from './held.js';
import { quorumFields } from '../quorum.js';
import { field, objectBody, requiredString } from './validate.js';
import { isoTime } from '../iso-time.js';

/** An agent as listed, created, suspended or resumed. Unset fields are omitted, never null. */
export function agentView(world: World, a: Account) {
  const policyId = world.store.policy(a.account_id)?.policy_id;
  return {
    account_id: a.account_id,
    handle: a.handle,
    type: a.type,
    public_key: a.public_key,
    status: a.status ?? 'active',
    ...(policyId ? { spend_policy_id: policyId } : {}),
    created_at: isoTime(a.created_at),
  };
}

/** Limits as JSON numbers; a field left out (no restriction) is omitted. */
export function policyView(p: SpendPolicyRecord) {
  const f = p.fields;
  const out: Record<string, unknown> = { policy_id: p.policy_id };
  for (const k of POLICY_FIELDS) {
    const v = f[k];
    if (v === null || v === undefined) continue;
    out[k] = k.endsWith('_usdc') && typeof v === 'string' ? Number(v) : v;
  }
  out.updated_at = isoTime(p.updated_at);
  return out;
}

/**
 * A held transaction as the pending list shows it (amount and memo only as ciphertexts; the
 * quorum and the approvals so far, beyond the spec, so an approver sees who already approved).
 */
export function pendingView(h: HeldTransaction) {
  return {
    transaction_id: h.transaction_id,
    agent: h.agent,
    to: h.to,
    asset: h.asset,
    requested_at: isoTime(h.requested_at),
    expires_at: isoTime(h.expires_at),
    ...quorumFields(h),
    ...(h.amount_ciphertext ? { amount_ciphertext: h.amount_ciphertext } : {}),
    ...(h.memo_ciphertext ? { memo_ciphertext: h.memo_ciphertext } : {}),
  };
}

function invalidPolicy(v: { field: string; message: string }): ApiFault {
  return new ApiFault(400, 'invalid_policy', v.message, { field: v.field });
}

function create(ctx: ApiContext): Reply {
  const { world, account } = ctx;
  assertNotAgent(account, 'create agents');
  const body = objectBody(ctx.json());
  const name = requiredString(body, 'name');
  if (!AGENT_NAME_RE.test(name)) throw invalid(`name ${AGENT_NAME_RULE}`);
  const spendPolicy = field(body, 'spend_policy');
  if (spendPolicy === undefined || spendPolicy === null) {
    throw invalid('spend_policy is required: an object of spend policy fields ({} for no restriction)');
  }
  const v = validatePolicyFields(spendPolicy, 'create');
  if (!v.ok) throw invalidPolicy(v);
  const { agent, decryptionKey } = createAgent(world, account, name, v.fields);
  // The decryption key is shown once (a replay repeats it: the pipeline keeps it sealed, not in the clear).
  return { status: 201, body: { ...agentView(world, agent), ...(decryptionKey ? { decryption_key: decryptionKey } : {}) }, shownOnce: ['decryption_key'] };
}

function list(ctx: ApiContext): Reply {
  // An agent owns no agents: its list is empty.
  return ok({ agents: ctx.world.store.agentsOf(ctx.account.account_id).map((a) => agentView(ctx.world, a)) });
}

/**
 * The agent named in the path, if the caller owns it. An unknown id and another account's agent
 * are the same 403 not_agent_owner (existence is not revealed). An agent may read its own policy
 * but never change anything about itself: 403 naming `write`, the action refused, with the code
 * `self` says (the spec's not_agent_owner for its policy, DESIGN.md's forbidden elsewhere).
 */
export function ownedAgent(ctx: ApiContext, write?: string, self: 'forbidden' | 'not_agent_owner' = 'forbidden'): Account {
  const id = ctx.params.account_id!;
  const agent = ctx.world.store.account(id);
  if (agent && agent.account_id === ctx.account.account_id && agent.type === 'agent') {
    if (write === undefined) return agent;
    const refused = `an agent's key cannot ${write}; use its owner's key`;
    throw self === 'not_agent_owner'
      ? new ApiFault(403, 'not_agent_owner', `${agent.handle} is an agent and does not own itself: ${refused}`)
      : new ApiFault(403, 'forbidden', `${agent.handle} is an agent: ${refused}`);
  }
  if (!agent || agent.type !== 'agent' || agent.parent_account_id !== ctx.account.account_id) {
    throw new ApiFault(403, 'not_agent_owner', `${ctx.account.handle} does not own an agent with the id ${id}`);
  }
  return agent;
}

function getPolicy(ctx: ApiContext): Reply {
  const agent = ownedAgent(ctx);
  return ok({ ...policyView(policyOf(ctx.world, agent)), ...dailySpentFor(ctx.world, agent, ctx.account) });
}

function patch(ctx: ApiContext): Reply {
  // The spec gives PATCH one 403, not_agent_owner: the agent's own key gets it too (DESIGN.md).
  const agent = ownedAgent(ctx, 'change its own spend policy', 'not_agent_owner');
  const body = objectBody(ctx.json());
  const v = validatePolicyFields(body, 'patch');
  if (!v.ok) throw invalidPolicy(v);
  const next = patchPolicy(ctx.world, agent, v.fields as PolicyFields);
  return ok({ ...policyView(next), ...dailySpentFor(ctx.world, agent, ctx.account) });
}

/** POST /v1/agents/{id}/suspend|resume (sandbox extension): 200 with the agent; a no-op if already so. */
function statusChange(status: AgentStatus) {
  const action = status === 'suspended' ? 'suspend' : 'resume';
  return (ctx: ApiContext): Reply => {
    const agent = ownedAgent(ctx, `${action} itself`);
    setAgentStatus(ctx.world, agent, status);
    return ok(agentView(ctx.world, agent));
  };
}

function listPending(ctx: ApiContext): Reply {
  return ok({ pending: pendingFor(ctx.world, ctx.account).map(pendingView) });
}

/**
 * Approve / reject answer the held transaction as a resource (held.ts): a partial approval is 200
 * with it still `pending_approval`. The calling key is the approver (its id its identity).
 */
function decision(kind: 'approve' | 'reject') {
  return (ctx: ApiContext): Reply => {
    const reason = kind === 'reject' ? rejectReason(ctx.json()) : undefined;
    const by = { key_id: ctx.key.key_id, key_name: ctx.key.name, account: ctx.account.handle };
    return ok(heldResource(decide(ctx.world, ctx.account, ctx.params.transaction_id!, kind, by, reason).held, ctx.account, ctx.world.now()));
  };
}

/**
 * The optional `reason` of a reject body (beyond the spec: our decision, docs/agents.md): a
 * string of 1 to 500 characters, else 400 invalid_request naming the field. No body, or one
 * without it: no reason.
 */
function rejectReason(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  const v = field(objectBody(body), 'reason');
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !rejectReasonFits(v)) throw new ApiFault(400, 'invalid_request', `reason ${REJECT_REASON_RULE}`, { field: 'reason' });
  return v;
}

export function registerAgentRoutes(routes: Routes): void {
  routes.apiIdempotent('POST', '/v1/accounts/me/agents', create);
  routes.api('GET', '/v1/accounts/me/agents', list);
  routes.api('GET', '/v1/agents/transactions/pending', listPending);
  registerHeldReads(routes);
  // Each owner key decides for itself: its Idempotency-Keys are its own (DESIGN.md "Quorum").
  routes.apiIdempotent('POST', '/v1/agents/transactions/:transaction_id/approve', decision('approve'), { perKey: true });
  routes.apiIdempotent('POST', '/v1/agents/transactions/:transaction_id/reject', decision('reject'), { perKey: true });
  routes.api('GET', '/v1/agents/:account_id/spend-policy', getPolicy);
  routes.api('PATCH', '/v1/agents/:account_id/spend-policy', patch);
  routes.apiIdempotent('POST', '/v1/agents/:account_id/suspend', statusChange('suspended'));
  routes.apiIdempotent('POST', '/v1/agents/:account_id/resume', statusChange('active'));
}
