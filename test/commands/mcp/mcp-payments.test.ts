// send_transfer's payments end to end (issue 32): the MCP SDK's client drives `svc mcp` (the real
// binary) against an in-process sandbox, the owner deciding through main() in this process. What
// is checked: what the session budget (--max-total) counts and when it gives a share back (a held
// transfer rejected or expired, learnt by a read or by asking the service when a send would pass
// it), what it says is left; a lost answer then a 429 (a lossy proxy on loopback as the profile's
// base URL): idempotency_outcome_unknown naming the key, still counted, never paid twice even
// once the service has forgotten the key; no answer at all: the error names the key svc made;
// and a held send repeated with its key after the decision: the transfer, or `rejected`, never a
// second hold. Each test has its own agent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTestAgent, pointProfileAt, type TestAgent } from '../../helpers/mcp-agent.js';
import { connectMcp, type McpSession } from '../../helpers/mcp-session.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { isTransferPost, RATE_LIMITED, startLossyProxy, type ProxyAction } from '../../helpers/lossy-proxy.js';

const TXN_RE = /^txn_[A-Za-z0-9]{24}$/;
const TR_RE = /^tr_\w+$/;
/** The sandbox's approval window is 15 minutes: a minute more expires a held transaction. */
const PAST_APPROVAL_WINDOW_MS = 16 * 60_000;

let t: TestSandbox;
const sessions: McpSession[] = [];

beforeAll(async () => {
  t = await startTestSandbox();
}, 30_000);
afterAll(async () => {
  await Promise.allSettled(sessions.map((s) => s.close()));
  await t?.close();
});

/**
 * A new agent of @alice (transfers above 50 held for approval), funded, its key and decryption key
 * in a profile of its own name; `baseUrl` puts another base URL (a proxy) in that profile.
 */
async function newAgent(opts: { baseUrl?: string } = {}): Promise<TestAgent> {
  const agent = await newTestAgent(t, 'payer');
  if (opts.baseUrl !== undefined) await pointProfileAt(t, agent.profile, opts.baseUrl);
  return agent;
}

async function serve(profile: string, ...args: string[]): Promise<McpSession> {
  const s = await connectMcp(['--profile', profile, ...args], t.env);
  sessions.push(s);
  return s;
}

type Result = Awaited<ReturnType<McpSession['call']>>;

/** A send that must succeed (sent or held): its structured result. */
async function sent(s: McpSession, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await s.call('send_transfer', { to: '@acme', ...args });
  expect(r.isError, JSON.stringify(r)).toBeFalsy();
  return r.structuredContent!;
}

/** A send held for approval: its transaction id. */
async function held(s: McpSession, args: Record<string, unknown>): Promise<string> {
  const r = await sent(s, args);
  expect(r).toMatchObject({ status: 'pending_approval', transaction_id: expect.stringMatching(TXN_RE) });
  return String(r.transaction_id);
}

function errorOf(r: Result): Record<string, unknown> {
  expect(r.isError, JSON.stringify(r)).toBe(true);
  return r.structuredContent!.error as Record<string, unknown>;
}

const owner = (decision: 'approve' | 'reject', id: string) => t.svcOk(['pending', decision, id]);

/** The agent's transfers, as the service holds them. */
async function transfersOf(profile: string): Promise<Array<{ transfer_id: string }>> {
  return t.svcJson(['--profile', profile, 'transfer', 'ls', '--all']);
}

/** The owner's approval queue: what can still be decided, of this agent. */
async function queueOf(handle: string): Promise<unknown[]> {
  const r = await t.svc(['--json', 'pending', 'ls']);
  expect(r.code, r.stderr).toBe(0);
  const doc = JSON.parse(r.stdout) as unknown[] | { pending: unknown[] };
  const rows = (Array.isArray(doc) ? doc : doc.pending) as Array<{ agent?: string }>;
  return rows.filter((row) => row.agent === handle);
}

/**
 * A new agent whose profile reaches the sandbox through a proxy: its POSTs of a transfer are
 * answered as `posts` says, in order (the last repeats), until `lossy` is turned off; every
 * other request goes through.
 */
async function lossyAgent(posts: ProxyAction[]) {
  const state = { lossy: true };
  let n = 0;
  const proxy = await startLossyProxy(t.url, (req): ProxyAction => (state.lossy && isTransferPost(req) ? posts[Math.min(n++, posts.length - 1)]! : 'forward'));
  return { proxy, state, ...(await newAgent({ baseUrl: proxy.url })) };
}
/** The first POST makes the transfer and its answer is lost; every retry meets a rate limiter's 429. */
const lostThen429 = () => lossyAgent(['drop-answer', RATE_LIMITED]);

describe('--max-total: what the session budget counts, and when a held share comes back', () => {
  it('a held 60 the owner rejects comes back: 30 then 30 more fit in 100', async () => {
    const { profile } = await newAgent();
    const s = await serve(profile, '--max-total', '100');
    const id = await held(s, { amount: '60' });
    await owner('reject', id);
    // The model reads what became of it, as the held result's `next` tells it to.
    expect((await s.call('get_pending_transaction', { transaction_id: id })).structuredContent).toMatchObject({ status: 'rejected' });
    expect(await sent(s, { amount: '30' })).toMatchObject({ transfer_id: expect.stringMatching(TR_RE) });
    expect(await sent(s, { amount: '30' })).toMatchObject({ transfer_id: expect.stringMatching(TR_RE) });
    expect(s.stderr()).not.toContain('session_budget_exceeded');
  });

  it('a send past it while 60 is held: refused saying 40.00 USDG is left and that the held share comes back; once the owner rejects it (no wait called), the same send goes', async () => {
    const { profile } = await newAgent();
    const s = await serve(profile, '--max-total', '100');
    const id = await held(s, { amount: '60' });
    const refused = await s.call('send_transfer', { to: '@acme', amount: '50' });
    const err = errorOf(refused);
    expect(err).toMatchObject({ code: 'session_budget_exceeded', remaining: '40.00', budget: '100.00' });
    expect(err.message).toBe("this transfer would pass the session's budget of 100.00 USDG (svc mcp --max-total): 40.00 USDG is left (of what is spent, 60.00 USDG is held for approval and comes back if it is rejected or expires); nothing was sent");
    expect(err.relay).toMatch(/^This session of svc mcp has 40\.00 USDG left of the spending budget its operator set \(--max-total\)\. Nothing was sent\./);
    expect(refused.content[0]!.text).toContain('40.00 USDG is left');
    // The owner rejects it; the model never asks. The next send that would pass the budget asks the service first.
    await owner('reject', id);
    expect(await sent(s, { amount: '50' })).toMatchObject({ transfer_id: expect.stringMatching(TR_RE) });
    expect(s.stderr()).not.toMatch(/wait_for_decision|get_pending_transaction/);
  });

  it('a held send that expires gives its share back: wait_for_decision says expired, then 60 fits again in 100', async () => {
    const { profile } = await newAgent();
    const s = await serve(profile, '--max-total', '100');
    const id = await held(s, { amount: '60' });
    await t.sandbox.advance(PAST_APPROVAL_WINDOW_MS);
    const waited = await s.call('wait_for_decision', { transaction_id: id, timeout_seconds: 30 });
    expect(waited.isError, JSON.stringify(waited)).toBeFalsy();
    expect(waited.structuredContent).toMatchObject({ status: 'expired', transaction_id: id });
    // Held again (above the threshold), not refused by the budget.
    await held(s, { amount: '60' });
  });

  it('the same key again is not counted again: an approved held 60 repeated in a budget of 100 answers its transfer', async () => {
    const { profile } = await newAgent();
    const s = await serve(profile, '--max-total', '100');
    const id = await held(s, { amount: '60', idempotency_key: 'budget-approved-once' });
    await owner('approve', id);
    const again = await sent(s, { amount: '60', idempotency_key: 'budget-approved-once' });
    expect(again).toMatchObject({ transfer_id: expect.stringMatching(TR_RE), replayed: true });
    // It still counts once: 40 is left.
    expect(errorOf(await s.call('send_transfer', { to: '@acme', amount: '41' }))).toMatchObject({ code: 'session_budget_exceeded', remaining: '40.00' });
    expect(await sent(s, { amount: '40' })).toMatchObject({ transfer_id: expect.stringMatching(TR_RE) });
  });
});

describe('a lost answer then a 429: the outcome is unknown, counted once, and never paid twice', () => {
  it('idempotency_outcome_unknown naming the key; the budget keeps it; 25 hours on (the service has forgotten the key), the same key is refused again, in this session and the next', async () => {
    const AMOUNT = '41.471352'; // a canary: the log must not hold it
    const { proxy: p, state, profile } = await lostThen429();
    try {
      const s = await serve(profile, '--max-total', AMOUNT);
      const send = { to: '@acme', amount: AMOUNT, idempotency_key: 'mcp-lost-then-429' };
      const first = errorOf(await s.call('send_transfer', send));
      expect(first).toMatchObject({ code: 'idempotency_outcome_unknown', idempotency_key: 'mcp-lost-then-429' });
      expect(first.message).toContain('mcp-lost-then-429');
      expect(first.relay).toMatch(/may have been\. Nothing more was sent\. Do not send it under another idempotency key/);
      expect(await transfersOf(profile)).toHaveLength(1); // the lost answer was a transfer
      state.lossy = false;

      // Still counted: the budget is spent, and the next send is refused before any request.
      const forwarded = p.forwarded.length;
      expect(errorOf(await s.call('send_transfer', { to: '@acme', amount: '0.01' }))).toMatchObject({ code: 'session_budget_exceeded', remaining: '0.00' });
      expect(p.forwarded.length).toBe(forwarded);

      expect((await t.svc(['sandbox', 'clock', 'advance', '25h'])).code).toBe(0);
      expect(errorOf(await s.call('send_transfer', send))).toMatchObject({ code: 'idempotency_outcome_unknown', idempotency_key: 'mcp-lost-then-429' });
      const next = await serve(profile, '--max-total', AMOUNT);
      expect(errorOf(await next.call('send_transfer', send))).toMatchObject({ code: 'idempotency_outcome_unknown', idempotency_key: 'mcp-lost-then-429' });

      expect(p.forwarded.filter(isTransferPost)).toHaveLength(1);
      expect(await transfersOf(profile)).toHaveLength(1);
      for (const session of [s, next]) {
        expect(session.stderr()).toMatch(/mcp: send_transfer error \(idempotency_outcome_unknown\)\n/);
        expect(session.stderr()).not.toContain(AMOUNT);
      }
    } finally {
      await p.close();
    }
  });

  it("within the service's memory, the same key in the same session is answered with the transfer the lost try made: one payment, counted once", async () => {
    const AMOUNT = '42.471352';
    const { proxy: p, state, profile } = await lostThen429();
    try {
      const s = await serve(profile, '--max-total', AMOUNT);
      const send = { to: '@acme', amount: AMOUNT, idempotency_key: 'mcp-lost-then-ok' };
      expect(errorOf(await s.call('send_transfer', send))).toMatchObject({ code: 'idempotency_outcome_unknown' });
      state.lossy = false;
      // Not refused for the budget this very payment already holds.
      const again = await sent(s, send);
      const made = await transfersOf(profile);
      expect(made).toHaveLength(1);
      expect(again).toMatchObject({ transfer_id: made[0]!.transfer_id, idempotency_key: 'mcp-lost-then-ok' });
      expect(errorOf(await s.call('send_transfer', { to: '@acme', amount: '0.01' }))).toMatchObject({ code: 'session_budget_exceeded', remaining: '0.00' });
      expect(s.stderr()).not.toContain(AMOUNT);
    } finally {
      await p.close();
    }
  });
});

describe('no answer at all: the key is the way back', () => {
  it('every try loses its answer and the model gave no key: the tool error names the key svc made; the same call with it is answered with the transfer (one payment)', async () => {
    const AMOUNT = '43.471352';
    const { proxy: p, state, profile } = await lossyAgent(['drop-answer']);
    try {
      const s = await serve(profile, '--max-total', AMOUNT);
      const err = errorOf(await s.call('send_transfer', { to: '@acme', amount: AMOUNT }));
      expect(err.idempotency_key).toEqual(expect.any(String));
      expect(err.relay).toMatch(new RegExp(`idempotency_key ${String(err.idempotency_key)}`));
      const made = await transfersOf(profile);
      expect(made).toHaveLength(1); // the lost answer was a transfer
      state.lossy = false;
      const again = await sent(s, { amount: AMOUNT, idempotency_key: err.idempotency_key });
      expect(again).toMatchObject({ transfer_id: made[0]!.transfer_id });
      expect(await transfersOf(profile)).toHaveLength(1);
      expect(s.stderr()).not.toContain(AMOUNT);
    } finally {
      await p.close();
    }
  });
});

describe('a held send repeated with its key after the decision', () => {
  /** A new agent's session with a send held under its key (in the owner's queue), then decided by the owner. */
  async function decidedHold(decision: 'approve' | 'reject', amount: string, key: string) {
    const { profile, handle } = await newAgent();
    const s = await serve(profile);
    const id = await held(s, { amount, idempotency_key: key });
    expect(await queueOf(handle)).toHaveLength(1);
    await owner(decision, id);
    return { s, profile, handle, id };
  }

  it('approved: the transfer the approval made, replayed', async () => {
    const { s, profile, handle, id } = await decidedHold('approve', '61.471352', 'held-then-approved');
    const again = await sent(s, { amount: '61.471352', idempotency_key: 'held-then-approved' });
    expect(again).toMatchObject({ transfer_id: expect.stringMatching(TR_RE), replayed: true, idempotency_key: 'held-then-approved' });
    const got = await s.call('get_pending_transaction', { transaction_id: id });
    expect(got.structuredContent).toMatchObject({ status: 'approved', transfer_id: again.transfer_id });
    expect(await transfersOf(profile)).toHaveLength(1);
    expect(await queueOf(handle)).toEqual([]);
    expect(s.stderr()).toContain(`mcp: send_transfer replayed transfer ${String(again.transfer_id)}\n`);
    expect(s.stderr()).not.toContain('61.471352');
  });

  it('rejected: a result (not an error) saying rejected, and no second hold', async () => {
    const { s, profile, handle, id } = await decidedHold('reject', '62.4713', 'held-then-rejected');
    const again = await s.call('send_transfer', { to: '@acme', amount: '62.4713', idempotency_key: 'held-then-rejected' });
    expect(again.isError, JSON.stringify(again)).toBeFalsy();
    expect(again.structuredContent).toMatchObject({ status: 'rejected', transaction_id: id, replayed: true, idempotency_key: 'held-then-rejected' });
    expect(String(again.structuredContent!.next)).toMatch(/rejected.*do not send it again/);
    expect(await queueOf(handle)).toEqual([]);
    expect(await transfersOf(profile)).toEqual([]);
    expect(s.stderr()).toContain(`mcp: send_transfer rejected transaction ${id}\n`);
  });
});
