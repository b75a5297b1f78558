// wait_for_decision as the MCP hosts people use run it (issue 38): the SDK's own client at its
// defaults drives `svc mcp` in this process (test/helpers/mcp-inprocess.ts) on a clock the test
// holds, so a 45 s wait takes milliseconds and nothing waits in real time. What is checked: a
// default wait on a transaction nobody decides answers pending before the host's 60 s request
// timeout, saying when it expires and the exact call to make again; a 20 s wait sends progress
// notifications ("awaiting approval, expires in 15m") with increasing progress; run as a task
// (2025-11-25) it stays `working` with that status message until the owner approves, then
// `completed` with the tool's result, and a cancel stops the wait and leaves the hold alone.
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolResultSchema, CreateTaskResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatedClock, virtualClock } from '../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { newTestAgent } from '../../helpers/mcp-agent.js';
import { startMcpInProcess, type InProcessMcp } from '../../helpers/mcp-inprocess.js';

const TXN_RE = /^txn_[A-Za-z0-9]{24}$/;
const AWAITING_RE = /^awaiting approval, expires in 1[45]m$/;

let t: TestSandbox;
const sessions: InProcessMcp[] = [];

beforeAll(async () => {
  t = await startTestSandbox();
}, 30_000);
afterAll(async () => {
  await Promise.allSettled(sessions.map((s) => s.close()));
  await t?.close();
});

/** A new funded agent of @alice (above 50 held for approval), in a profile of its own name. */
async function newAgent(): Promise<string> {
  return (await newTestAgent(t, 'waiter')).profile;
}

async function serve(clock: Parameters<typeof startMcpInProcess>[1]['clock'], client?: Parameters<typeof startMcpInProcess>[1]['client']): Promise<InProcessMcp> {
  const s = await startMcpInProcess(['--profile', await newAgent()], { env: t.env, clock, ...(client ? { client } : {}) });
  sessions.push(s);
  return s;
}

/** A send above the threshold: held; its transaction id. */
async function held(s: InProcessMcp, amount = '60.25'): Promise<string> {
  const r = await s.client.callTool({ name: 'send_transfer', arguments: { to: '@acme', amount } });
  expect(r.structuredContent).toMatchObject({ status: 'pending_approval', transaction_id: expect.stringMatching(TXN_RE) });
  return String((r.structuredContent as Record<string, unknown>).transaction_id);
}

describe('wait_for_decision with the SDK client at its defaults', () => {
  it('a default wait on a transaction nobody decides answers pending before the 60 s request timeout, with its expiry and the call to make again', async () => {
    const clock = virtualClock();
    const s = await serve(clock);
    const id = await held(s);
    const before = clock.now();
    const r = await s.client.callTool({ name: 'wait_for_decision', arguments: { transaction_id: id } });
    const waited = clock.now() - before;
    // On the server's clock: it waited at most 45 s, well short of the host's timeout.
    expect(waited).toBeGreaterThan(0);
    expect(waited).toBeLessThanOrEqual(45_000);
    expect(waited).toBeLessThan(DEFAULT_REQUEST_TIMEOUT_MSEC);
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    const data = r.structuredContent as Record<string, unknown>;
    expect(data).toMatchObject({
      status: 'pending_approval', transaction_id: id, expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      next_call: { tool: 'wait_for_decision', arguments: { transaction_id: id } },
    });
    expect(data.waited_seconds).toBeLessThanOrEqual(45);
    expect(String(data.next)).toContain(`call wait_for_decision again with {"transaction_id":"${id}"}`);
    expect(String(data.next)).toMatch(/awaiting approval, expires in 1[45]m/);
    // The tool says so to the model, and why a longer wait needs more of the host.
    const { tools } = await s.client.listTools();
    const wait = tools.find((tool) => tool.name === 'wait_for_decision')!;
    expect(wait.description).toMatch(/default 45/);
    expect(wait.description).toMatch(/resetTimeoutOnProgress/);
  });

  it('a 20 s wait sends progress notifications every few seconds: "awaiting approval, expires in 15m", progress increasing, no amount', async () => {
    const clock = virtualClock();
    const s = await serve(clock);
    const id = await held(s, '61.750893');
    const seen: Progress[] = [];
    const r = await s.client.callTool({ name: 'wait_for_decision', arguments: { transaction_id: id, timeout_seconds: 20 } }, undefined, { onprogress: (p) => seen.push(p) });
    expect(r.structuredContent).toMatchObject({ status: 'pending_approval' });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const p of seen) {
      expect(p.message).toMatch(AWAITING_RE);
      expect(p.total).toBe(20);
      expect(p.message).not.toContain('61.750893');
    }
    const progress = seen.map((p) => p.progress);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1]!);
    expect(progress.at(-1)).toBeLessThanOrEqual(20);
  });
});

describe('wait_for_decision as a task (MCP 2025-11-25)', () => {
  const tasksClient = { capabilities: { tasks: { list: {}, cancel: {} } } };

  it('stays working with a status message until the owner approves, then completed with the tool\'s result; tasks/result gives it', async () => {
    const clock = gatedClock();
    const s = await serve(clock, tasksClient);
    expect(s.client.getServerCapabilities()?.tasks?.requests?.tools?.call).toBeDefined();
    const id = await held(s);
    const created = await s.client.request(
      { method: 'tools/call', params: { name: 'wait_for_decision', arguments: { transaction_id: id }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    expect(created.task).toMatchObject({ status: 'working', statusMessage: expect.stringMatching(AWAITING_RE) });
    // The wait is under way (held in a pause on the test's clock): still working, well past any 45 s.
    await clock.asleep();
    expect(await s.client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'working', statusMessage: expect.stringMatching(AWAITING_RE) });
    await t.svcOk(['pending', 'approve', id]);
    clock.release();
    const result = await s.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ status: 'approved', transaction_id: id, transfer_id: expect.stringMatching(/^tr_\w+$/) });
    expect(await s.client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'completed' });
    expect(s.stderr()).toMatch(new RegExp(`mcp: wait_for_decision approved transfer tr_\\w+ transaction ${id}\\n`));
  });

  it('a cancel stops the wait and nothing else: the hold stays pending for the humans; a task still waiting ends with the session', async () => {
    const clock = gatedClock();
    const s = await serve(clock, tasksClient);
    const id = await held(s);
    const created = await s.client.request(
      { method: 'tools/call', params: { name: 'wait_for_decision', arguments: { transaction_id: id }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    await clock.asleep();
    const cancelled = await s.client.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled).toMatchObject({ status: 'cancelled' });
    clock.release();
    const plain = await s.client.callTool({ name: 'get_pending_transaction', arguments: { transaction_id: id } });
    expect(plain.structuredContent).toMatchObject({ status: 'pending_approval' });
    expect(s.stderr()).not.toMatch(new RegExp(`mcp: wait_for_decision \\w+ transaction ${id}`));
    // Only wait_for_decision runs as a task.
    await expect(s.client.request({ method: 'tools/call', params: { name: 'get_balance', arguments: {}, task: { ttl: 60_000 } } }, CreateTaskResultSchema)).rejects.toThrow(/only wait_for_decision runs as a task/);
    // A task still waiting when the session ends stops with it: the session ends, exit 0, the hold stays.
    const other = await held(s, '62');
    await s.client.request({ method: 'tools/call', params: { name: 'wait_for_decision', arguments: { transaction_id: other }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    await clock.asleep();
    sessions.splice(sessions.indexOf(s), 1);
    expect(await s.close()).toBe(0);
    expect(s.stderr()).toMatch(/mcp: session ended\n$/);
    expect(await t.svcJson(['pending', 'get', other])).toMatchObject({ status: 'pending_approval' });
  });
});
