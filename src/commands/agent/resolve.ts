// `<agent>` may be a handle (@acme/bot), a name (bot) or an account id.
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { AgentSchema, listOf, type Agent } from '../../api/schemas.js';
import { CliError } from '../../errors.js';

export async function fetchAgents(client: ApiClient): Promise<Agent[]> {
  const { data } = await client.get('/v1/accounts/me/agents', { schema: listOf('agents', AgentSchema) });
  return data.items;
}

export async function resolveAgent(ctx: Needs<'client'>, ref: string): Promise<Agent> {
  const client = await ctx.client();
  const agents = await fetchAgents(client);
  const wanted = ref.toLowerCase();
  const match = agents.find((a) => a.account_id === ref)
    ?? agents.find((a) => a.handle.toLowerCase() === wanted)
    ?? agents.find((a) => a.handle.toLowerCase().split('/').pop() === wanted.replace(/^@/, ''));
  if (!match) {
    throw new CliError('not_found', 'agent_not_found', `no agent "${ref}" under this account`, { hint: 'run `svc agent ls` to see the agents' });
  }
  return match;
}
