// `svc agent suspend|resume <agent>`: a suspended agent's key cannot move money; its held
// transactions stay for its owner to approve or reject (docs/agents.md).
import type { Needs } from '../../runtime/factory.js';
import { AgentSchema } from '../../api/schemas.js';
import { outputMode, printJson, printRecord } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { resolveAgent } from './resolve.js';
import { svc } from '../../domain/shell-command.js';

export type StatusAction = 'suspend' | 'resume';

export async function setAgentStatus(ctx: Needs<'client' | 'confirm' | 'io' | 'json'>, ref: string, action: StatusAction): Promise<void> {
  const agent = await resolveAgent(ctx, ref);
  const handle = sanitize(agent.handle);
  await ctx.confirm.live(`${action === 'suspend' ? 'Suspend' : 'Resume'} agent ${handle} on a LIVE account?`);
  const client = await ctx.client();
  const { data } = await client.post(`/v1/agents/${encodeURIComponent(agent.account_id)}/${action}`, { body: {}, schema: AgentSchema });
  if (ctx.json) return printJson(ctx.io, data);
  ctx.io.err(action === 'suspend'
    ? `suspended ${handle}: its key can no longer move money (${svc`agent resume ${handle}`} undoes it)\n`
    : `resumed ${handle}: its key may move money again, within its spend policy\n`);
  printRecord(ctx.io, outputMode(ctx.io, false), data, [
    { key: 'handle', header: 'Handle' },
    { key: 'account_id', header: 'Account ID' },
    { key: 'status', header: 'Status' },
  ]);
}
