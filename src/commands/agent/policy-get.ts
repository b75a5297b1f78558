import type { App } from '../../app.js';
import { SpendPolicySchema } from '../../api/schemas.js';
import { outputMode, printRecord } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { policyColumns } from './policy-view.js';
import { resolveAgent } from './resolve.js';

export async function getPolicy(app: App, ref: string): Promise<void> {
  const agent = await resolveAgent(app, ref);
  const client = await app.client();
  const { data } = await client.get(`/v1/agents/${encodeURIComponent(agent.account_id)}/spend-policy`, { schema: SpendPolicySchema });
  const mode = outputMode(app.io, app.json);
  if (mode === 'table') app.io.out(`${sanitize(agent.handle)}\n`);
  printRecord(app.io, mode, data, policyColumns(() => app.serviceNow()));
}
