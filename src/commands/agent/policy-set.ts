// `svc agent policy set <agent>`: a merge patch of the given fields, shown as a diff first.
import type { Needs } from '../../runtime/factory.js';
import { SpendPolicySchema } from '../../api/schemas.js';
import { compilePolicy, mergePolicyFields, policyWarnings, validatePolicyFields, type PolicyFields } from '../../domain/policy.js';
import { addressPatternTypo, parseRecipientPattern } from '../../domain/recipient-pattern.js';
import { UsageError } from '../../errors.js';
import { outputMode, printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { policyFieldsFrom, type PolicyFlags } from './policy-input.js';
import { pickPolicyFields, policyDiff, printPolicy } from './policy-view.js';
import { resolveAgent } from './resolve.js';

export async function setPolicy(ctx: Needs<'client' | 'confirm' | 'io' | 'json' | 'serviceClock'>, ref: string, flags: PolicyFlags): Promise<void> {
  const edits = checkAllowEdits(flags);
  const patch = await policyFieldsFrom(ctx, flags, 'patch');
  if (Object.keys(patch).length === 0 && !edits) {
    throw new UsageError('nothing to change: give at least one policy flag, --clear or --policy-file', undefined, 'usage');
  }
  const agent = await resolveAgent(ctx, ref);
  const client = await ctx.client();
  const path = `/v1/agents/${encodeURIComponent(agent.account_id)}/spend-policy`;
  const { data: before } = await client.get(path, { schema: SpendPolicySchema });
  if (edits) patch.allowed_recipients = editedRecipients(before.allowed_recipients, edits);
  const current = validatePolicyFields(pickPolicyFields(before), 'read');
  const after = mergePolicyFields(current.ok ? current.fields : {}, patch);
  const diff = policyDiff(before, after as Record<string, unknown>);
  const handle = sanitize(agent.handle);
  if (diff.length === 0) {
    if (ctx.json) return printJson(ctx.io, before);
    ctx.io.err(`the policy of ${handle} already says that; nothing to change\n`);
    return;
  }
  // For a person (with --json, stderr carries only an error object if one comes).
  if (!ctx.json) {
    // Diff lines quote the service's policy and the policy file: each line sanitised.
    ctx.io.err(`Spend policy of ${handle}:\n${diff.map(sanitize).join('\n')}\n`);
    if (flags.allow && before.allowed_recipients?.length) {
      ctx.io.err('note: --allow replaces the whole recipient list; --add-allow and --remove-allow edit it\n');
    }
    for (const w of policyWarnings(compilePolicy(after as PolicyFields))) ctx.io.err(`warning: ${sanitize(w)}\n`);
  }
  await ctx.confirm.live(`Apply this change to ${handle} on a LIVE account?`);
  const { data } = await client.patch(path, { body: patch, schema: SpendPolicySchema });
  if (ctx.json) return printJson(ctx.io, data);
  ctx.io.err(`updated the spend policy of ${handle}\n`);
  printPolicy(ctx.io, outputMode(ctx.io, false), data, () => ctx.serviceClock.now());
}

interface AllowEdits {
  add: string[];
  remove: string[];
}

/** --add-allow / --remove-allow, checked before anything is read or sent. */
function checkAllowEdits(flags: PolicyFlags): AllowEdits | undefined {
  const add = flags.addAllow ?? [];
  const remove = flags.removeAllow ?? [];
  if (!add.length && !remove.length) return undefined;
  if (flags.allow || flags.clear?.some((c) => ['allow', '--allow', 'allowed_recipients'].includes(c))) {
    throw new UsageError('--add-allow and --remove-allow edit the recipient list; do not combine them with --allow or --clear allow', undefined, 'usage');
  }
  for (const pattern of add) {
    const p = parseRecipientPattern(pattern);
    if ('rule' in p) throw new UsageError(`--add-allow "${sanitize(pattern)}" ${p.rule}`, undefined, 'invalid_policy');
    const typo = addressPatternTypo(pattern);
    if (typo) throw new UsageError(`--add-allow "${sanitize(pattern)}" ${typo}`, undefined, 'invalid_address_checksum');
  }
  return { add: add.map((a) => a.trim()), remove: remove.map((r) => r.trim()) };
}

/** The recipient list after the edits (matching is case-insensitive, as the policy engine's is). */
function editedRecipients(current: string[] | undefined, edits: AllowEdits): string[] {
  if (current === undefined) {
    throw new UsageError('the agent may pay anyone today: adding a recipient would restrict it to that one alone', 'to allow only some recipients, set the list with --allow', 'usage');
  }
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  let list = [...current];
  for (const r of edits.remove) {
    if (!list.some((x) => same(x, r))) throw new UsageError(`--remove-allow "${sanitize(r)}" is not in the recipient list`, undefined, 'invalid_policy');
    list = list.filter((x) => !same(x, r));
  }
  for (const a of edits.add) if (!list.some((x) => same(x, a))) list.push(a);
  return list;
}
