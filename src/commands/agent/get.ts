// `svc agent get <agent>`: one agent whole (ids and chain address, which `agent ls` leaves to
// --json and here) and its spend policy.
import type { Needs } from '../../runtime/factory.js';
import { SpendPolicySchema } from '../../api/schemas.js';
import { addressCell, addressDisplay } from '../../io/addresses.js';
import { outputMode, printJson, printRecord } from '../../io/render.js';
import { printPolicy } from './policy-view.js';
import { resolveAgent } from './resolve.js';

export async function getAgent(ctx: Needs<'client' | 'io' | 'json' | 'serviceClock'>, ref: string): Promise<void> {
  const agent = await resolveAgent(ctx, ref);
  const client = await ctx.client();
  const { data: policy } = await client.get(`/v1/agents/${encodeURIComponent(agent.account_id)}/spend-policy`, { schema: SpendPolicySchema });
  if (ctx.json) return printJson(ctx.io, { ...agent, spend_policy: policy });
  const mode = outputMode(ctx.io, false);
  const show = await addressDisplay(mode);
  printRecord(ctx.io, mode, agent, [
    { key: 'handle', header: 'Handle' },
    { key: 'account_id', header: 'Account ID' },
    { key: 'status', header: 'Status' },
    { key: 'spend_policy_id', header: 'Policy ID', only: 'tsv' },
    { key: 'public_key', header: 'Chain address', format: addressCell(show) },
  ]);
  if (mode === 'table') ctx.io.out('\nSpend policy\n');
  printPolicy(ctx.io, mode, policy, () => ctx.serviceClock.now());
}
