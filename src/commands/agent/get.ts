// `svc agent get <agent>`: one agent whole (ids and chain address, which `agent ls` leaves to
// --json and here) and its spend policy.
import type { Needs } from '../../runtime/factory.js';
import { SpendPolicySchema } from '../../api/schemas.js';
import { printJson } from '../../io/render.js';
import { printAgentRecord } from './agent-record.js';
import { resolveAgent } from './resolve.js';

export async function getAgent(ctx: Needs<'client' | 'io' | 'json' | 'serviceClock'>, ref: string): Promise<void> {
  const agent = await resolveAgent(ctx, ref);
  const client = await ctx.client();
  const { data: policy } = await client.get(`/v1/agents/${encodeURIComponent(agent.account_id)}/spend-policy`, { schema: SpendPolicySchema });
  if (ctx.json) return printJson(ctx.io, { ...agent, spend_policy: policy });
  await printAgentRecord(ctx, agent, policy);
}
