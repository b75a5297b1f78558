// Issue 36, "Words", as an approver and an auditor read them (docs/ux.md "Words"): a decided
// transaction shows its decision, never a countdown; one message says a thing once (a rejection's
// reason, "it stays pending"); `pending log` at 80 columns keeps what an auditor reads by (when,
// the decision, who, the agent whole, the reason). End to end in-process against a sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatedClock, runCli } from '../../helpers/cli.js';
import { scriptedPrompter } from '../../helpers/prompter.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';

const TXN_RE = /txn_[A-Za-z0-9]{24}/;
/** An agent name long enough that a handle cut to fit would show (`@alice/payr…-bot`). */
const AGENT = 'payroll-reconcile-bot';

let t: TestSandbox;
let agent: Record<string, string>;

async function hold(amount = '60'): Promise<string> {
  const r = await t.svc(['--json', 'transfer', 'send', '@acme', amount], { env: agent });
  expect(r.code, r.stderr).toBe(8);
  return TXN_RE.exec(r.stdout)![0];
}

const tty = (args: string[], env: Record<string, string> = {}, columns = 120) => runCli(args, { env: { ...t.env, ...env }, tty: { stdout: true }, columns });
const count = (text: string, phrase: string) => text.split(phrase).length - 1;

beforeAll(async () => {
  t = await startTestSandbox();
  await t.svcOk(['agent', 'create', AGENT, '--approval-threshold', '50']);
  const key = (await t.svcOk(['sandbox', 'key', 'create', '--account', `@alice/${AGENT}`])).stdout.trim();
  agent = { SVC_API_KEY: key };
  await t.svcOk(['sandbox', 'fund', `@alice/${AGENT}`, '500']);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('a decided transaction shows its decision, not a countdown', () => {
  it('pending get: pending counts down; approved and rejected say when and by whom; expired says when it expired', async () => {
    const open = await hold();
    const waiting = await tty(['pending', 'get', open]);
    expect(waiting.stdout).toMatch(/^Expires +in 1[45]m$/m);
    expect(waiting.stdout).not.toMatch(/^Decided/m);

    const approved = await hold();
    await t.svcOk(['pending', 'approve', approved]);
    const rejected = await hold();
    await t.svcOk(['pending', 'reject', rejected, '--reason', 'wrong vendor']);
    for (const id of [approved, rejected]) {
      const r = await tty(['pending', 'get', id]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(/^Expire/m);
      expect(r.stdout).not.toMatch(/\bin \d+m\b/);
      expect(r.stdout).toMatch(/^Decided +now$/m);
      expect(r.stdout).toMatch(/^Decided by +key "seed" of @alice$/m);
    }
    expect((await tty(['pending', 'get', rejected])).stdout).toMatch(/^Reason +wrong vendor$/m);
    // The agent's own wait ends on the same record.
    const waited = await runCli(['pending', 'wait', approved], { env: { ...t.env, ...agent }, tty: { stdout: true }, columns: 120 });
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).not.toMatch(/^Expire/m);
    expect(waited.stdout).toMatch(/^Decided by +key "seed" of @alice$/m);
    // Piped and --json keep the service's fields.
    expect((await t.svc(['pending', 'get', approved])).stdout).toMatch(/^expires_at\t\d{4}-/m);

    await t.sandbox.advance(16 * 60_000);
    const expired = await tty(['pending', 'get', open]);
    expect(expired.stdout).toMatch(/^Status +expired$/m);
    expect(expired.stdout).toMatch(/^Expired +\d+[sm] ago$/m);
    expect(expired.stdout).not.toMatch(/^Expires/m);
  });
});

describe('one message says a thing once', () => {
  it("a rejection's reason, in the agent's wait (`pending wait`, `transfer send --wait`)", async () => {
    const id = await hold();
    await t.svcOk(['pending', 'reject', id, '--reason', 'wrong vendor']);
    const r = await t.svc(['pending', 'wait', id], { env: agent });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^error: held transaction txn_\w+ was rejected by key "seed" of @alice at \S+: "wrong vendor"; nothing was sent \(transaction_rejected\)$/m);
    expect(count(r.stderr, 'wrong vendor')).toBe(1);

    // Sent and waited for in one command: the decision comes while it waits.
    const clock = gatedClock();
    const send = runCli(['transfer', 'send', '@acme', '70', '--wait'], { env: { ...t.env, ...agent }, clock });
    await clock.asleep();
    const [held] = await t.svcJson<Array<{ transaction_id: string }>>(['pending', 'ls']);
    await t.svcOk(['pending', 'reject', held!.transaction_id, '--reason', 'over budget']);
    clock.release();
    const sent = await send;
    expect(sent.code).toBe(6);
    expect(count(sent.stderr, 'over budget')).toBe(1);
  });

  it('a policy\'s reason is still named once, in the parenthesis (the message does not say it)', async () => {
    await t.svcOk(['agent', 'policy', 'set', AGENT, '--allow', '@bob']);
    try {
      const r = await t.svc(['transfer', 'send', '@acme', '1'], { env: agent });
      expect(r.code).toBe(6);
      expect(r.stderr).toMatch(/\(policy_violation: recipient_not_allowed, request req_\w+\)/);
      expect(count(r.stderr, 'recipient_not_allowed')).toBe(1);
    } finally {
      await t.svcOk(['agent', 'policy', 'set', AGENT, '--clear', 'allow']);
    }
  });

  it('review: an approval the agent cannot pay says once that it stays pending', async () => {
    const id = await hold('9999'); // more than the agent has
    // Alone in the queue, whatever an earlier test left there.
    for (const p of await t.svcJson<Array<{ transaction_id: string }>>(['pending', 'ls'])) if (p.transaction_id !== id) await t.svcOk(['pending', 'reject', p.transaction_id]);
    const prompter = scriptedPrompter(['approve', 'quit']);
    const r = await runCli(['pending', 'review'], { env: t.env, prompter, tty: { stdin: true, stdout: true } });
    expect(r.code, r.stderr).toBe(0);
    const said = r.stderr.split('\n').find((l) => l.startsWith(`✗ ${id} not sent:`));
    expect(said, r.stderr).toBeDefined();
    expect(said).toContain('does not have enough');
    expect(count(said!, 'stays pending')).toBe(1);
    await t.svcOk(['pending', 'reject', id]);
  });
});

describe('pending log at 80 columns: what an auditor reads by stays', () => {
  it('time, the decision and what came of it, who decided, the agent whole and the reason; the ids go first (named on stderr)', async () => {
    await t.svcOk(['pending', 'approve', await hold()]);
    await t.svcOk(['pending', 'reject', await hold(), '--reason', 'wrong vendor']);
    const r = await tty(['pending', 'log', '--limit', '2'], {}, 80);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.every((l) => l.length <= 80), r.stdout).toBe(true);
    expect(lines[0]).toMatch(/^TIME +RESULT +BY +AGENT +REASON$/);
    const when = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ';
    expect(lines[1]).toMatch(new RegExp(`^${when} +rejected +seed +@alice/${AGENT} +wrong vendor$`));
    expect(lines[2]).toMatch(new RegExp(`^${when} +approved +seed +@alice/${AGENT}$`));
    expect(r.stdout).not.toContain('…');
    expect(r.stderr).toBe('TRANSACTION, TO, TRANSFER not shown: widen the terminal or use --json\n');
  });
});
