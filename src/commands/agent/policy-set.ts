import type { App } from '../../app.js';
import { SpendPolicySchema } from '../../api/schemas.js';
import { compilePolicy, mergePolicyFields, policyWarnings, validatePolicyFields, type PolicyFields } from '../../domain/policy.js';
import { UsageError } from '../../errors.js';
import { outputMode, printJson, printRecord } from '../../io/render.js';
import { policyFieldsFrom, type PolicyFlags } from './policy-input.js';
import { pickPolicyFields, POLICY_COLUMNS, policyDiff } from './policy-view.js';
import { resolveAgent } from './resolve.js';

export async function setPolicy(app: App, ref: string, flags: PolicyFlags): Promise<void> {
  const patch = await policyFieldsFrom(app, flags, 'patch');
  if (Object.keys(patch).length === 0) throw new UsageError('nothing to change: give at least one policy flag, --clear or --policy-file');
  const agent = await resolveAgent(app, ref);
  const client = await app.client();
  const path = `/v1/agents/${encodeURIComponent(agent.account_id)}/spend-policy`;
  const { data: before } = await client.get(path, { schema: SpendPolicySchema });
  const current = validatePolicyFields(pickPolicyFields(before), 'create');
  const after = mergePolicyFields(current.ok ? current.fields : {}, patch);
  const diff = policyDiff(before, after as Record<string, unknown>);
  if (diff.length === 0) {
    app.io.err(`the policy of ${agent.handle} already says that; nothing to change\n`);
    if (app.json) printJson(app.io, before);
    return;
  }
  app.io.err(`Spend policy of ${agent.handle}:\n${diff.join('\n')}\n`);
  for (const w of policyWarnings(compilePolicy(after as PolicyFields))) app.io.err(`warning: ${w}\n`);
  await app.confirm(`Apply this change to ${agent.handle}?`);
  const { data } = await client.patch(path, { body: patch, schema: SpendPolicySchema });
  if (app.json) return printJson(app.io, data);
  app.io.err(`updated the spend policy of ${agent.handle}\n`);
  printRecord(app.io, outputMode(app.io, false), data, POLICY_COLUMNS);
}
