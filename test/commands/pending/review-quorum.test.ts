// `pending review` sees the other approvers (docs/approvals.md "Two-person approval"), in-process
// against a scripted service whose state the test moves between reads, on a gated clock (each
// --interval of the refresh ends when the test says): another key's approval is on the screen after
// one interval, with who; a transaction decided elsewhere closes its prompt by itself with who
// and what, and nothing is sent; and, without --watch, a key pressed on one decided elsewhere
// since it was drawn sends nothing (the state is read again before a decision). A real terminal:
// review-quorum-tty.test.ts.
import { describe, expect, it } from 'vitest';
import type { Prompter, ReviewChoice, ReviewConfig } from '../../../src/io/prompter.js';
import { gatedClock, runCli } from '../../helpers/cli.js';
import type { Handler, ScriptedServer } from '../../helpers/scripted-server.js';
import { scriptedServices } from '../../helpers/scripted-env.js';

const ACCOUNT = { account_id: 'acct_1', handle: '@alice', type: 'personal', public_key: `0x${'1'.repeat(40)}`, kyc_status: 'verified', created_at: '2024-01-01T00:00:00Z' };
const AGENT = { account_id: 'acct_bot', handle: '@alice/bot', public_key: `0x${'2'.repeat(40)}`, status: 'active', spend_policy_id: 'pol_1' };
const POLICY = { policy_id: 'pol_1', hitl_threshold_usdc: 50, approvals_required: 2, updated_at: '2024-01-01T00:00:00Z' };
const ID = 'txn_quorum1';
const at = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
const approval = (key: string) => ({ key_name: key, account: '@alice', at: at(-1) });

/** The transaction as the queue lists it (quorum of 2, the approvals so far). */
function item(approvals: string[]) {
  return { transaction_id: ID, agent: '@alice/bot', to: '@acme', asset: 'USDG', requested_at: at(-2), expires_at: at(13), approvals_required: 2, approvals: approvals.map(approval) };
}

/** The resource once it is decided: approved by ops3 (ops2 before it), its transfer made. */
const APPROVED = {
  ...item(['ops2', 'ops3']), status: 'approved', decided_at: at(0), decided_by: { key_name: 'ops3', account: '@alice' }, transfer_id: 'tr_made1', rule: 'hitl_threshold', hitl_threshold_usdc: 50,
};

type Phase = 'none' | 'ops2' | 'decided';

/** The service: the queue and the resource follow `phase()`; every request is recorded by the server. */
function service(phase: () => Phase): Handler {
  return (req) => {
    const p = phase();
    if (req.method === 'GET' && req.url === '/v1/agents/transactions/pending') {
      return { status: 200, body: { pending: p === 'decided' ? [] : [item(p === 'ops2' ? ['ops2'] : [])] } };
    }
    if (req.method === 'GET' && req.url === `/v1/agents/transactions/${ID}`) {
      return { status: 200, body: p === 'decided' ? APPROVED : { ...item(p === 'ops2' ? ['ops2'] : []), status: 'pending_approval', rule: 'hitl_threshold' } };
    }
    if (req.method === 'GET' && req.url === '/v1/accounts/me') return { status: 200, body: ACCOUNT };
    if (req.method === 'GET' && req.url === '/v1/accounts/me/agents') return { status: 200, body: { agents: [AGENT] } };
    if (req.method === 'GET' && req.url === '/v1/agents/acct_bot/spend-policy') return { status: 200, body: POLICY };
    return { status: 404, body: { error: { code: 'not_found', message: 'not here' } } };
  };
}

const serve = scriptedServices('svc-review-quorum-');

/** A prompter whose review prompt is a test step: `onReview` decides when and what it answers. */
function promptWith(onReview: (config: ReviewConfig) => Promise<ReviewChoice>): Prompter {
  const no = async () => {
    throw new Error('unexpected question');
  };
  return { confirm: no, secret: no, text: no, review: onReview };
}

/** Resolves with the screen once `check` holds for it, looked at on each redraw the prompt is told of. */
function screenWhen(config: ReviewConfig, check: (details: string[], ended: string | undefined) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const look = () => {
      const s = config.live!();
      if (check(s.details, s.ended)) resolve();
    };
    config.subscribe?.(look);
    look();
  });
}

const decisionPosts = (server: ScriptedServer) => server.requests.filter((r) => r.method === 'POST');

describe('the review screen follows the other approvers', () => {
  it('another key\'s approval is drawn after one interval ("1 of 2 so far: key "ops2" of @alice"); decided elsewhere, the prompt closes by itself with who and what; nothing is sent', async () => {
    let phase: Phase = 'none';
    const { server, env } = await serve(service(() => phase));
    const clock = gatedClock();
    const prompter = promptWith(async (config) => {
      expect(config.details).toContain('approvals    0 of 2 so far');
      // Another approver (key ops2) approves while this prompt is up: one interval later it shows.
      await clock.asleep();
      phase = 'ops2';
      clock.release();
      await screenWhen(config, (d) => d.includes('approvals    1 of 2 so far: key "ops2" of @alice'));
      expect(clock.slept).toEqual([500]); // drawn after the first interval, not later
      // The last approval arrives elsewhere (key ops3): the prompt is told at the next read.
      await clock.asleep();
      phase = 'decided';
      clock.release();
      await screenWhen(config, (_d, ended) => ended !== undefined);
      expect(config.live!().ended).toBe('approved elsewhere by key "ops3" of @alice');
      expect(clock.slept).toEqual([500, 500]);
      return 'elsewhere';
    });
    const r = await runCli(['pending', 'review', '--interval', '500ms'], { env, clock, prompter, tty: { stdin: true, stdout: true } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`✗ ${ID} is no longer pending: approved by key "ops3" of @alice (2 of 2 approvals: keys "ops2" and "ops3" of @alice): submitted as transfer tr_made1\n`);
    expect(r.stderr).toMatch(/approved 0, rejected 0, skipped 0, expired 0, decided elsewhere 1\n$/);
    expect(decisionPosts(server)).toEqual([]);
  });

  it('without --watch, a key pressed on one decided elsewhere since it was drawn sends nothing: it is read again first, and who and what are said', async () => {
    let phase: Phase = 'ops2';
    const { server, env } = await serve(service(() => phase));
    let drawn: string[] = [];
    const prompter = promptWith(async (config) => {
      drawn = config.details;
      phase = 'decided'; // between the drawing and the key: nothing has read the queue since
      return 'approve';
    });
    const r = await runCli(['pending', 'review'], { env, clock: gatedClock(), prompter, tty: { stdin: true, stdout: true } });
    expect(decisionPosts(server)).toEqual([]);
    expect(r.code, r.stderr).toBe(0);
    expect(drawn).toContain('approvals    1 of 2 so far: key "ops2" of @alice');
    expect(server.requests.filter((q) => q.url === `/v1/agents/transactions/${ID}`).length).toBeGreaterThan(0);
    expect(r.stderr).toContain(`✗ ${ID} is no longer pending: approved by key "ops3" of @alice (2 of 2 approvals: keys "ops2" and "ops3" of @alice): submitted as transfer tr_made1\n`);
    expect(r.stderr).not.toContain('✓ approved');
  });
});
