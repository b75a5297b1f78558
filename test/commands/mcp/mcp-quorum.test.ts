// An AI agent's wait through a two-person approval (docs/approvals.md "Two-person approval",
// docs/mcp.md): the MCP SDK's client drives `svc mcp` (the real binary: `npm run build` first)
// with the agent's profile, against an in-process sandbox; the two approvers decide through main()
// in this process, each with a key of their own. wait_for_decision goes on through a partial
// approval: a call that runs out of time says how far it is (1 of 2, and whose key, marked as text
// written by others); the next call returns approved once the second approval is in. One reject
// after an approval ends it as rejected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/config/profiles.js';
import { connectMcp, type McpSession } from '../../helpers/mcp-session.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';

const TR_RE = /^tr_\w+$/;

let t: TestSandbox;
let session: McpSession;
const approvers: Record<string, string> = {};

async function ok(args: string[], env: Record<string, string> = {}) {
  const r = await t.svc(args, { env });
  if (r.code !== 0 && r.code !== 8) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r;
}

const decide = (person: string, decision: 'approve' | 'reject', id: string) => ok(['pending', decision, id], { SVC_API_KEY: approvers[person]! });

beforeAll(async () => {
  t = await startTestSandbox();
  const created = await ok(['agent', 'create', 'bot', '--hitl-threshold', '50', '--approvals-required', '2']);
  const decryptionKey = /shown ONCE[^\n]*\n\s+(\S+)/.exec(created.stderr)![1]!;
  const key = (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
  await ok(['sandbox', 'fund', '@alice/bot', '1000']);
  await new ProfileStore(t.configDir).set('bot', { apiKey: key, baseUrl: t.url, decryptionKey });
  for (const person of ['ops2', 'ops3']) approvers[person] = (await ok(['sandbox', 'key', 'create', '--account', '@alice', '--name', person])).stdout.trim();
  session = await connectMcp(['--profile', 'bot'], t.env);
}, 60_000);
afterAll(async () => {
  await session?.close();
  await t?.close();
});

async function held(amount: string): Promise<string> {
  const r = await session.call('send_transfer', { to: '@acme', amount });
  expect(r.structuredContent).toMatchObject({ status: 'pending_approval' });
  return String(r.structuredContent!.transaction_id);
}

describe('wait_for_decision through a two-person approval', () => {
  it('1 of 2: the call that runs out of time says how far it is and whose key (text written by others); the next returns approved after the second approval', async () => {
    const id = await held('70');
    await decide('ops2', 'approve', id);
    const partial = await session.call('wait_for_decision', { transaction_id: id, timeout_seconds: 1 });
    expect(partial.isError, JSON.stringify(partial)).toBeFalsy();
    expect(partial.structuredContent).toMatchObject({
      status: 'pending_approval', transaction_id: id, approvals_required: 2, approvals: [{ key_name: 'ops2', account: '@alice' }],
    });
    expect(partial.structuredContent!.written_by_others).toEqual(['approvals[].key_name']);
    expect(String(partial.structuredContent!.next)).toMatch(/needs 2 approvals by distinct people .*\(1 of 2 approvals so far\): waiting for another approver\. The agent cannot approve/);
    const text = partial.content.map((c) => c.text ?? '').join('\n');
    expect(text).toContain(`still pending_approval after 1s: held transaction ${id} with 1 of 2 approvals (key "ops2" of @alice); waiting for another approver`);

    const waiting = session.call('wait_for_decision', { transaction_id: id, timeout_seconds: 120 });
    await decide('ops3', 'approve', id);
    const r = await waiting;
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ status: 'approved', transaction_id: id, transfer_id: expect.stringMatching(TR_RE), approvals_required: 2 });
    expect((r.structuredContent!.approvals as unknown[]).length).toBe(2);
  }, 60_000);

  it('approve then reject: rejected, as today', async () => {
    const id = await held('71');
    await decide('ops2', 'approve', id);
    const waiting = session.call('wait_for_decision', { transaction_id: id, timeout_seconds: 120 });
    await decide('ops3', 'reject', id);
    const r = await waiting;
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ status: 'rejected', transaction_id: id });
  }, 60_000);
});
