// `svc mcp --confirm-sends` (issue 38) end to end: the MCP SDK's client, at its defaults but for
// the elicitation capability it declares (or not), drives the real binary against an in-process
// sandbox reached through a recording proxy, so every POST of a transfer that reached the service
// is counted. What is checked: a "yes" sends once, and the question showed recipient, amount,
// asset and memo; decline, cancel, "no" and no answer send nothing and say so to the model
// (send_not_confirmed, its reason, a relay) and on stderr (the outcome word); a declined send's
// budget share comes back; a host without elicitation has every send refused
// (confirmation_unavailable), said at start; a replay and a budget refusal ask nothing; the
// canary amount and memo never reach stderr; --read-only with it is a usage error.
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newTestAgent, pointProfileAt, type TestAgent } from '../../helpers/mcp-agent.js';
import { connectMcp, type ClientSetup, type McpSession } from '../../helpers/mcp-session.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { isTransferPost, startLossyProxy, type LossyProxy } from '../../helpers/lossy-proxy.js';

const TR_RE = /^tr_\w+$/;
/** Canaries: what the model sent, which the stderr log must never hold. */
const AMOUNT = '13.471352';
const MEMO = 'invoice 7741 canary-memo-q9';

let t: TestSandbox;
const sessions: McpSession[] = [];
const proxies: LossyProxy[] = [];

beforeAll(async () => {
  t = await startTestSandbox();
}, 30_000);
afterAll(async () => {
  await Promise.allSettled(sessions.map((s) => s.close()));
  await Promise.allSettled(proxies.map((p) => p.close()));
  await t?.close();
});

/**
 * A new funded agent of @alice (held above 50) whose profile reaches the sandbox through a
 * recording proxy; `dropAnswers` until turned off, each transfer POST's answer is lost (it was made).
 */
async function newAgent(): Promise<TestAgent & { posts: () => number; dropAnswers: { on: boolean } }> {
  const agent = await newTestAgent(t, 'asker');
  const dropAnswers = { on: false };
  const proxy = await startLossyProxy(t.url, (req) => (dropAnswers.on && isTransferPost(req) ? 'drop-answer' : 'forward'));
  proxies.push(proxy);
  await pointProfileAt(t, agent.profile, proxy.url);
  return { ...agent, posts: () => proxy.forwarded.filter(isTransferPost).length, dropAnswers };
}

/** A host that declares form elicitation and answers each question with the next of `answers` (the last repeats). */
function host(answers: Array<ElicitResult | 'never'>): ClientSetup & { asked: ElicitRequest['params'][] } {
  const asked: ElicitRequest['params'][] = [];
  return {
    asked,
    capabilities: { elicitation: { form: {} } },
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, (req) => {
        const answer = answers[Math.min(asked.length, answers.length - 1)]!;
        asked.push(req.params);
        return answer === 'never' ? new Promise<ElicitResult>(() => {}) : Promise.resolve(answer);
      }),
  };
}
const YES: ElicitResult = { action: 'accept', content: { send: true } };
const NO: ElicitResult = { action: 'accept', content: { send: false } };

async function serve(profile: string, args: string[], setup: ClientSetup = {}): Promise<McpSession> {
  const s = await connectMcp(['--profile', profile, '--confirm-sends', ...args], t.env, setup);
  sessions.push(s);
  return s;
}

type Result = Awaited<ReturnType<McpSession['call']>>;
function errorOf(r: Result): Record<string, unknown> {
  expect(r.isError, JSON.stringify(r)).toBe(true);
  return r.structuredContent!.error as Record<string, unknown>;
}
const transfersOf = (profile: string) => t.svcJson<unknown[]>(['--profile', profile, 'transfer', 'ls', '--all']);
const noCanary = (s: McpSession) => {
  expect(s.stderr()).not.toContain(AMOUNT);
  expect(s.stderr()).not.toContain('canary-memo');
};

describe('svc mcp --confirm-sends: the person at the host is asked before each send', () => {
  it('two calls under one idempotency key, both asked: the second "yes", after the first sent, reads back what the first made and sends nothing', async () => {
    const { profile, posts } = await newAgent();
    const gates: Array<(r: ElicitResult) => void> = [];
    const asked: unknown[] = [];
    const s = await serve(profile, [], {
      capabilities: { elicitation: { form: {} } },
      setup: (client) => client.setRequestHandler(ElicitRequestSchema, (req) => {
        asked.push(req.params);
        return new Promise<ElicitResult>((resolve) => gates.push(resolve));
      }),
    });
    const args = { to: '@acme', amount: '12.345671', idempotency_key: 'same-key-7c41e2' };
    const first = s.call('send_transfer', args);
    const second = s.call('send_transfer', args);
    await vi.waitFor(() => expect(asked).toHaveLength(2));
    gates[0]!(YES);
    const r1 = await first;
    expect(r1.structuredContent).toMatchObject({ transfer_id: expect.stringMatching(TR_RE) });
    gates[1]!(YES);
    const r2 = await second;
    expect(r2.isError, JSON.stringify(r2)).toBeFalsy();
    expect(r2.structuredContent).toMatchObject({ transfer_id: r1.structuredContent!.transfer_id, replayed: true });
    expect(posts()).toBe(1);
    expect(await transfersOf(profile)).toHaveLength(1);
  });

  it('a "yes" sends once, through the payment path; the question showed recipient, amount, asset and memo, with a yes/no', async () => {
    const { profile, handle, posts } = await newAgent();
    const h = host([YES]);
    const s = await serve(profile, [], h);
    await vi.waitFor(() => expect(s.stderr()).toContain('mcp: --confirm-sends: each send_transfer asks the person at host "svc-test 0.0.0" first (form elicitation)\n'));
    // The model is told that a person sees each send first and may decline it.
    expect(s.client.getInstructions()).toContain('(svc mcp --confirm-sends), who may decline it');
    const sendSpec = (await s.client.listTools()).tools.find((x) => x.name === 'send_transfer')!;
    expect(sendSpec.description).toContain('send_not_confirmed and nothing is sent');
    const r = await s.call('send_transfer', { to: '@acme', amount: AMOUNT, asset: 'USDG', memo: MEMO });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ status: expect.any(String), transfer_id: expect.stringMatching(TR_RE), to: '@acme' });
    expect(posts()).toBe(1);
    expect(await transfersOf(profile)).toHaveLength(1);

    expect(h.asked).toHaveLength(1);
    const q = h.asked[0]! as { mode?: string; message: string; requestedSchema: { properties: Record<string, { type: string; default?: unknown }>; required?: string[] } };
    expect(q.mode).toBe('form');
    expect(q.message).toContain(`(${handle}) wants to send a transfer`);
    expect(q.message).toContain('\n  to: @acme\n');
    expect(q.message).toContain(`\n  amount: ${AMOUNT} USDG\n`);
    expect(q.message).toContain(`\n  memo (as the agent wrote it): ${MEMO}\n`);
    expect(q.requestedSchema.properties).toEqual({ send: expect.objectContaining({ type: 'boolean', default: false }) });
    expect(q.requestedSchema.required).toEqual(['send']);
    await vi.waitFor(() => expect(s.stderr()).toMatch(/mcp: send_transfer ok transfer tr_\w+\n/));
    noCanary(s);
  });

  it('declined: nothing reaches the service, a tool error with its code, reason and relay; its budget share comes back, so the next send fits', async () => {
    const { profile, posts } = await newAgent();
    const h = host([{ action: 'decline' }, YES]);
    const s = await serve(profile, ['--max-total', '20'], h);
    const err = errorOf(await s.call('send_transfer', { to: '@acme', amount: '15', memo: MEMO }));
    expect(err).toMatchObject({ code: 'send_not_confirmed', reason: 'declined' });
    expect(err.message).toBe('the person at the host declined this transfer (svc mcp --confirm-sends); nothing was sent');
    expect(err.relay).toBe('The person at the host declined this transfer; nothing was sent. Tell the user; do not retry unless they ask.');
    expect(posts()).toBe(0);
    expect(await transfersOf(profile)).toHaveLength(0);
    await vi.waitFor(() => expect(s.stderr()).toMatch(/mcp: send_transfer declined \(send_not_confirmed\)\n/));
    // 15 + 15 would pass 20 had the declined share been kept.
    const sent = await s.call('send_transfer', { to: '@acme', amount: '15' });
    expect(sent.isError, JSON.stringify(sent)).toBeFalsy();
    expect(posts()).toBe(1);
    expect(h.asked).toHaveLength(2);
    noCanary(s);
  });

  it('accepted with "no", or the question dismissed: nothing sent, each said as such', async () => {
    const { profile, posts } = await newAgent();
    const h = host([NO, { action: 'cancel' }]);
    const s = await serve(profile, [], h);
    expect(errorOf(await s.call('send_transfer', { to: '@acme', amount: AMOUNT }))).toMatchObject({ code: 'send_not_confirmed', reason: 'answered_no' });
    expect(errorOf(await s.call('send_transfer', { to: '@acme', amount: AMOUNT }))).toMatchObject({ code: 'send_not_confirmed', reason: 'cancelled' });
    expect(posts()).toBe(0);
    expect(await transfersOf(profile)).toHaveLength(0);
    await vi.waitFor(() => expect(s.stderr()).toMatch(/mcp: send_transfer declined \(send_not_confirmed\)\nmcp: send_transfer cancelled \(send_not_confirmed\)\n/));
    noCanary(s);
  });

  it('no answer, and the host withdraws the call: the question is withdrawn too and nothing is sent', async () => {
    const { profile, posts } = await newAgent();
    const withdraw = new AbortController();
    const h = host(['never']);
    const s = await serve(profile, [], h);
    const asked = vi.waitFor(() => expect(h.asked).toHaveLength(1));
    const call = s.client.callTool({ name: 'send_transfer', arguments: { to: '@acme', amount: AMOUNT } }, undefined, { signal: withdraw.signal });
    await asked;
    withdraw.abort();
    await expect(call).rejects.toThrow();
    await vi.waitFor(() => expect(s.stderr()).toMatch(/mcp: send_transfer unanswered \(send_not_confirmed\)\n/));
    expect(posts()).toBe(0);
    expect(await transfersOf(profile)).toHaveLength(0);
    noCanary(s);
  });

  it('a host without elicitation: said at start naming it; every send refused (confirmation_unavailable), nothing sent', async () => {
    const { profile, posts } = await newAgent();
    const s = await serve(profile, []);
    await vi.waitFor(() => expect(s.stderr()).toContain('mcp: --confirm-sends: host "svc-test 0.0.0" did not declare form elicitation: every send_transfer is refused, nothing is sent (confirmation_unavailable)\n'));
    for (const amount of [AMOUNT, '1']) {
      const err = errorOf(await s.call('send_transfer', { to: '@acme', amount, memo: MEMO }));
      expect(err).toMatchObject({ code: 'confirmation_unavailable' });
      expect(err.relay).toMatch(/cannot ask its user to confirm a transfer.*nothing was sent\. Tell the user; do not retry\./);
    }
    expect(posts()).toBe(0);
    expect(await transfersOf(profile)).toHaveLength(0);
    expect(s.stderr().match(/mcp: send_transfer refused \(confirmation_unavailable\)\n/g)).toHaveLength(2);
    noCanary(s);
  });

  it('a replay of an earlier key asks nothing and sends nothing more; a send the budget refuses asks nothing', async () => {
    const { profile, posts } = await newAgent();
    const h = host([YES]);
    const s = await serve(profile, ['--max-total', '20'], h);
    const send = { to: '@acme', amount: '12', idempotency_key: 'confirm-replay-1' };
    const first = await s.call('send_transfer', send);
    expect(first.isError, JSON.stringify(first)).toBeFalsy();
    const again = await s.call('send_transfer', send);
    expect(again.structuredContent).toMatchObject({ transfer_id: first.structuredContent!.transfer_id, replayed: true });
    expect(errorOf(await s.call('send_transfer', { to: '@acme', amount: '9' }))).toMatchObject({ code: 'session_budget_exceeded' });
    expect(h.asked).toHaveLength(1);
    expect(posts()).toBe(1);
  });

  it('sent again under its key after an unknown outcome, it is asked again (it may pay); declined, its share stays counted; yes: the one transfer', async () => {
    const { profile, posts, dropAnswers } = await newAgent();
    const h = host([YES, { action: 'decline' }, YES]);
    const s = await serve(profile, ['--max-total', '20'], h);
    dropAnswers.on = true;
    const lost = errorOf(await s.call('send_transfer', { to: '@acme', amount: '15' }));
    const key = String(lost.idempotency_key);
    expect(await transfersOf(profile)).toHaveLength(1); // the lost answer was a transfer
    dropAnswers.on = false;
    const tried = posts();
    expect(errorOf(await s.call('send_transfer', { to: '@acme', amount: '15', idempotency_key: key }))).toMatchObject({ code: 'send_not_confirmed', reason: 'declined' });
    expect(posts()).toBe(tried);
    // The unknown 15 still counts: 10 more would pass 20 (and is refused without a question).
    expect(errorOf(await s.call('send_transfer', { to: '@acme', amount: '10' }))).toMatchObject({ code: 'session_budget_exceeded', remaining: '5.00' });
    const made = await transfersOf(profile);
    const again = await s.call('send_transfer', { to: '@acme', amount: '15', idempotency_key: key });
    expect(again.isError, JSON.stringify(again)).toBeFalsy();
    expect(again.structuredContent).toMatchObject({ transfer_id: (made[0] as { transfer_id: string }).transfer_id });
    expect(await transfersOf(profile)).toHaveLength(1);
    expect(h.asked).toHaveLength(3);
  });
});

describe('svc mcp --confirm-sends --read-only', () => {
  it('is a usage error (exit 2): there is no send to confirm; nothing is served', async () => {
    const { profile } = await newAgent();
    const r = await t.svc(['--profile', profile, 'mcp', '--read-only', '--confirm-sends']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: --confirm-sends asks before each send_transfer, and --read-only offers none: there is nothing to confirm \(usage\)\n/);
  });
});
