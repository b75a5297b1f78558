import type { Needs } from '../../runtime/factory.js';
import { AgentSchema, SpendPolicySchema } from '../../api/schemas.js';
import { compilePolicy, policyWarnings } from '../../domain/policy.js';
import { printJson, type Row } from '../../io/render.js';
import { UsageError } from '../../errors.js';
import { AGENT_NAME_RE, AGENT_NAME_RULE } from '../../domain/agent-name.js';
import { sanitize } from '../../io/sanitize.js';
import { withTarget } from '../../runtime/hint-command.js';
import { policyFieldsFrom, type PolicyFlags } from './policy-input.js';
import { printAgentRecord } from './agent-record.js';
import { makeKeyAndSave, planSave, type SavedAgentProfile } from './save-profile.js';
import { placeholder, svc } from '../../domain/shell-command.js';

export interface CreateFlags extends PolicyFlags {
  saveProfile?: string;
  force?: boolean;
}

type CreateNeeds = 'auth' | 'client' | 'clientFor' | 'confirm' | 'globals' | 'io' | 'json' | 'profiles' | 'serviceClock';

export async function createAgent(ctx: Needs<CreateNeeds>, name: string, flags: CreateFlags): Promise<void> {
  if (!AGENT_NAME_RE.test(name)) throw new UsageError(`agent name "${sanitize(name)}" ${AGENT_NAME_RULE}`, undefined, 'invalid_agent_name');
  if (flags.force && flags.saveProfile === undefined) throw new UsageError('--force replaces the profile named by --save-profile: give --save-profile too', undefined, 'usage');
  const fields = await policyFieldsFrom(ctx, flags, 'create');
  // Before the agent exists: a profile that may not be written, or a service that cannot make its key, stops here.
  const plan = flags.saveProfile === undefined ? undefined : await planSave(ctx, flags.saveProfile, Boolean(flags.force));
  if (!ctx.json) for (const w of policyWarnings(compilePolicy(fields))) ctx.io.err(`warning: ${sanitize(w)}\n`);
  await ctx.confirm.live(`Create agent "${name}" on a LIVE account?`);
  const client = await ctx.client();
  const { data } = await client.post('/v1/accounts/me/agents', { body: { name, spend_policy: fields }, schema: AgentSchema });
  if (!ctx.json) ctx.io.err(`created agent ${sanitize(data.handle)}\n`);
  const policy = await createdPolicy(ctx, data, fields);
  const saved = plan ? await makeKeyAndSave(ctx, plan, data) : undefined;
  // JSON: the agent as the service answered it, plus (added fields) its policy and the saved profile.
  if (ctx.json) return printJson(ctx.io, { ...data, spend_policy: policy, ...(saved ? { profile: saved.profile, api_key: saved.apiKey } : {}) });
  await printAgentRecord(ctx, data, policy);
  if (saved) return savedNext(ctx, saved, data.handle);
  const dk = data.decryption_key;
  if (typeof dk === 'string') {
    ctx.io.err(`\nThe agent's decryption key is shown ONCE; store it now (it reads the agent's amounts):\n  ${sanitize(dk)}\n`);
  }
  ctx.io.err(`next: give it a key with the dashboard (sandbox: ${sanitize(withTarget(svc`sandbox key create --account ${data.handle}`, ctx.globals))}, or create it with --save-profile <name>)\n`);
}

/** The policy as the service stored it; what was sent (with the agent's policy id) when it cannot be read back. */
async function createdPolicy(ctx: Needs<'client' | 'io' | 'json'>, agent: { account_id: string; spend_policy_id: string }, sent: object): Promise<Row> {
  try {
    const client = await ctx.client();
    const { data } = await client.get(`/v1/agents/${encodeURIComponent(agent.account_id)}/spend-policy`, { schema: SpendPolicySchema });
    return data;
  } catch (err) {
    if (!ctx.json) ctx.io.err(`note: the policy could not be read back (${sanitize(err instanceof Error ? err.message : String(err))}); shown as sent\n`);
    return { policy_id: agent.spend_policy_id, ...sent };
  }
}

function savedNext(ctx: Needs<'globals' | 'io'>, saved: SavedAgentProfile, handle: string): void {
  const name = sanitize(saved.profile);
  const follows = saved.follows !== undefined ? '; it follows the sandbox wherever it listens' : '';
  ctx.io.err(`saved profile "${name}" for ${sanitize(handle)}${saved.decryptionKey ? ' with its decryption key' : ''}${follows}\n`);
  // Funding is the owner's (this run's target); the send is the agent's own profile.
  const fund = sanitize(withTarget(svc`sandbox fund ${handle} 100`, ctx.globals));
  ctx.io.err(`next: fund it (${fund}), then use it: ${sanitize(svc`--profile ${saved.profile} transfer send ${placeholder('to')} ${placeholder('amount')}`)}\n`);
}
