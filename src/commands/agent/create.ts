import type { App } from '../../app.js';
import { AgentSchema } from '../../api/schemas.js';
import { compilePolicy, policyWarnings } from '../../domain/policy.js';
import { outputMode, printJson, printRecord } from '../../io/render.js';
import { UsageError } from '../../errors.js';
import { policyFieldsFrom, type PolicyFlags } from './policy-input.js';

const NAME_RE = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export async function createAgent(app: App, name: string, flags: PolicyFlags): Promise<void> {
  if (!NAME_RE.test(name)) throw new UsageError(`agent name "${name}" is invalid: 1-32 lowercase letters, digits, "-" or "_", starting with a letter or digit`);
  const fields = await policyFieldsFrom(app, flags, 'create');
  for (const w of policyWarnings(compilePolicy(fields))) app.io.err(`warning: ${w}\n`);
  await app.confirm(`Create agent "${name}" on a LIVE account?`, { onlyLive: true });
  const client = await app.client();
  const { data } = await client.post('/v1/accounts/me/agents', { body: { name, spend_policy: fields }, schema: AgentSchema });
  if (app.json) return printJson(app.io, data);
  app.io.err(`created agent ${data.handle}\n`);
  printRecord(app.io, outputMode(app.io, false), data, [
    { key: 'handle', header: 'Handle' },
    { key: 'account_id', header: 'Account ID' },
    { key: 'status', header: 'Status' },
    { key: 'spend_policy_id', header: 'Policy ID' },
    { key: 'public_key', header: 'Chain address' },
  ]);
  const dk = (data as Record<string, unknown>).decryption_key;
  if (typeof dk === 'string') {
    app.io.err(`\nThe agent's decryption key is shown ONCE; store it now (it reads the agent's amounts):\n  ${dk}\n`);
  }
  app.io.err(`next: give it a key with the dashboard (sandbox: \`svc sandbox key create --account ${data.handle}\`)\n`);
}
