import type { Needs } from '../../runtime/factory.js';
import { AgentSchema } from '../../api/schemas.js';
import { compilePolicy, policyWarnings } from '../../domain/policy.js';
import { addressCell, addressDisplay } from '../../io/addresses.js';
import { outputMode, printJson, printRecord } from '../../io/render.js';
import { UsageError } from '../../errors.js';
import { AGENT_NAME_RE, AGENT_NAME_RULE } from '../../domain/agent-name.js';
import { sanitize } from '../../io/sanitize.js';
import { withTarget } from '../../runtime/hint-command.js';
import { policyFieldsFrom, type PolicyFlags } from './policy-input.js';

export async function createAgent(ctx: Needs<'client' | 'confirm' | 'globals' | 'io' | 'json'>, name: string, flags: PolicyFlags): Promise<void> {
  if (!AGENT_NAME_RE.test(name)) throw new UsageError(`agent name "${sanitize(name)}" ${AGENT_NAME_RULE}`, undefined, 'invalid_agent_name');
  const fields = await policyFieldsFrom(ctx, flags, 'create');
  if (!ctx.json) for (const w of policyWarnings(compilePolicy(fields))) ctx.io.err(`warning: ${sanitize(w)}\n`);
  await ctx.confirm.live(`Create agent "${name}" on a LIVE account?`);
  const client = await ctx.client();
  const { data } = await client.post('/v1/accounts/me/agents', { body: { name, spend_policy: fields }, schema: AgentSchema });
  if (ctx.json) return printJson(ctx.io, data);
  ctx.io.err(`created agent ${sanitize(data.handle)}\n`);
  const mode = outputMode(ctx.io, false);
  const show = await addressDisplay(mode);
  printRecord(ctx.io, mode, data, [
    { key: 'handle', header: 'Handle' },
    { key: 'account_id', header: 'Account ID' },
    { key: 'status', header: 'Status' },
    { key: 'spend_policy_id', header: 'Policy ID' },
    { key: 'public_key', header: 'Chain address', format: addressCell(show) },
  ]);
  const dk = (data as Record<string, unknown>).decryption_key;
  if (typeof dk === 'string') {
    ctx.io.err(`\nThe agent's decryption key is shown ONCE; store it now (it reads the agent's amounts):\n  ${sanitize(dk)}\n`);
  }
  ctx.io.err(`next: give it a key with the dashboard (sandbox: ${sanitize(withTarget(`\`svc sandbox key create --account ${sanitize(data.handle)}\``, ctx.globals))})\n`);
}
