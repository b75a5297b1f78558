import type { Needs } from '../../runtime/factory.js';
import { SpendPolicySchema } from '../../api/schemas.js';
import { outputMode } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { printPolicy } from './policy-view.js';
import { resolveAgent } from './resolve.js';

export async function getPolicy(ctx: Needs<'client' | 'io' | 'json' | 'serviceClock'>, ref: string): Promise<void> {
  const agent = await resolveAgent(ctx, ref);
  const client = await ctx.client();
  const { data } = await client.get(`/v1/agents/${encodeURIComponent(agent.account_id)}/spend-policy`, { schema: SpendPolicySchema });
  const mode = outputMode(ctx.io, ctx.json);
  if (mode === 'table') ctx.io.out(`${sanitize(agent.handle)}\n`);
  printPolicy(ctx.io, mode, data, () => ctx.serviceClock.now());
}
