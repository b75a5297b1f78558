// Two-person approval as the approvers and the agent see it (docs/approvals.md "Two-person
// approval"), end to end in-process against a sandbox: an agent whose policy needs two approvals,
// two approvers with a key and a profile each (ops2, ops3), and the agent's own key. What each
// screen and record says: `pending approve` of 1 of 2 and of the same key twice, `pending ls`,
// `get`, `log`, review's --notify-command; and the agent's waits (`pending wait`, `transfer send
// --wait`) through a partial approval to the end: approved (exit 0), or rejected by one approver
// after another approved (exit 6). Commands that wait run on a gated clock: the test waits on
// events (it has read; an approver has decided), never on time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatedClock, runCli } from '../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { scriptedPrompter } from '../../helpers/prompter.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TXN_RE = /txn_[A-Za-z0-9]{24}/;
const BLOCK = 60_000; // startTestSandbox's block time: a transfer settles when the test advances it

let t: TestSandbox;
/** The agent's environment: its own key and decryption key. */
let agent: Record<string, string>;
let decrypts = false;

function ok(args: string[], env: Record<string, string> = {}, input?: string) {
  return t.svcOk(args, { env, ...(input !== undefined ? { input } : {}) });
}

/** The agent proposes a transfer above its threshold: held (exit 8); its id. */
async function hold(amount = '60'): Promise<string> {
  const r = await t.svc(['--json', 'transfer', 'send', '@acme', amount], { env: agent });
  expect(r.code, r.stderr).toBe(8);
  return TXN_RE.exec(r.stdout)![0];
}

/** One approver's command, with their own profile. */
const as = (person: 'ops2' | 'ops3', args: string[]) => t.svc(['--profile', person, ...args]);

/** Runs a command as the agent on a gated clock, collecting stderr as it is written. */
function asAgent(args: string[]) {
  const clock = gatedClock();
  let stderr = '';
  const done = runCli(args, { env: { ...t.env, ...agent }, clock, onStderr: (s) => (stderr += s) });
  return { clock, done, stderr: () => stderr };
}

const tsvRecord = (out: string) => Object.fromEntries(out.trim().split('\n').map((l) => l.split('\t') as [string, string]));
const agentTransfers = async () => (await t.svcJson<Array<{ from: string }>>(['transfer', 'ls'], { env: agent })).filter((x) => x.from === '@alice/bot').length;

beforeAll(async () => {
  t = await startTestSandbox();
  const created = await ok(['agent', 'create', 'bot', '--hitl-threshold', '50', '--approvals-required', '2']);
  const agentDk = /shown ONCE[^\n]*\n\s+(\S+)/.exec(created.stderr)?.[1];
  expect(agentDk).toBeDefined();
  agent = { SVC_API_KEY: (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim(), SVC_DECRYPTION_KEY: agentDk! };
  await ok(['sandbox', 'fund', '@alice/bot', '1000']);
  // One key per person, each in a profile of its own (the account's decryption key: amounts open).
  const aliceDk = t.sandbox.seeded.find((a) => a.handle === '@alice')?.decryptionKey;
  decrypts = Boolean(aliceDk);
  for (const person of ['ops2', 'ops3']) {
    const key = (await ok(['sandbox', 'key', 'create', '--account', '@alice', '--name', person])).stdout.trim();
    await ok(['profile', 'add', person, '--key-stdin', ...(aliceDk ? ['--decryption-key-stdin'] : []), '--base-url', t.url], {}, `${key}\n${aliceDk ?? ''}\n`);
  }
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('pending approve with a policy that needs two approvals', () => {
  it('1 of 2: "1 of 2 approvals (yours); waiting for another approver", exit 0, nothing paid; the same key again: exit 5, already_approved, naming the key; the second key completes it', async () => {
    const id = await hold();
    const before = await agentTransfers();
    const first = await as('ops2', ['pending', 'approve', id]);
    expect(first.code, first.stderr).toBe(0);
    const amount = decrypts ? '60.00 USDG' : 'an encrypted amount';
    expect(first.stderr).toContain(`counted your approval of ${id}: ${amount} from @alice/bot to @acme; 1 of 2 approvals (yours); waiting for another approver; nothing is sent until then\n`);
    expect(tsvRecord(first.stdout)).toEqual({ transaction_id: id, status: 'pending_approval', approvals: '1', approvals_required: '2' });
    expect(await agentTransfers()).toBe(before);

    // The same person again (a new idempotency key): refused, nothing changes.
    const again = await as('ops2', ['--json', 'pending', 'approve', id]);
    expect(again.code).toBe(5);
    expect(again.stdout).toBe('');
    const err = JSON.parse(again.stderr).error as Record<string, string>;
    expect(err.code).toBe('already_approved');
    expect(err.message).toBe(`you (key "ops2") already approved ${id}: each key counts once; 1 of 2 approvals (key "ops2" of @alice); waiting for another approver`);
    expect(err.hint).toContain(`\`svc --profile <their-profile> pending approve ${id}\``);
    const text = await as('ops2', ['pending', 'approve', id]);
    expect(text.stderr).toMatch(new RegExp(`^error: you \\(key "ops2"\\) already approved ${id}: .* \\(already_approved, request req_\\w+\\)$`, 'm'));

    // The second person: approved, the transfer made once.
    const second = await as('ops3', ['pending', 'approve', id]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(new RegExp(`^approved ${id}: ${amount} from @alice/bot to @acme, submitted as transfer tr_\\w+\\n`));
    expect(second.stderr).toContain('  approvals    2 of 2: keys "ops2" and "ops3" of @alice\n');
    expect(tsvRecord(second.stdout)).toMatchObject({ status: 'approved', approvals: '2', approvals_required: '2', transfer_id: expect.stringMatching(/^tr_/) });
    expect(await agentTransfers()).toBe(before + 1);
  });

  it('--json returns the resource of a partial approval (still pending_approval, the approvals so far)', async () => {
    const id = await hold();
    const r = await as('ops3', ['--json', 'pending', 'approve', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ transaction_id: id, status: 'pending_approval', approvals_required: 2, approvals: [{ key_name: 'ops3', account: '@alice', at: expect.any(String) }] });
    await as('ops2', ['pending', 'reject', id]);
  });
});

describe('every screen and record says who approved so far', () => {
  it('pending ls (table and TSV), pending get (table and TSV) and pending log (partial ones included)', async () => {
    const id = await hold('61');
    expect((await as('ops2', ['pending', 'approve', id])).code).toBe(0);

    const table = await runCli(['pending', 'ls'], { env: t.env, tty: { stdout: true }, columns: 200 });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/\bAPPROVALS\b/);
    expect(table.stdout).toMatch(new RegExp(`^${id} .* 1 of 2: ops2 `, 'm'));
    const tsv = (await t.svc(['pending', 'ls'])).stdout.trim().split('\n');
    const header = tsv[0]!.split('\t');
    const row = Object.fromEntries(tsv.find((l) => l.startsWith(id))!.split('\t').map((v, i) => [header[i], v]));
    expect(row).toMatchObject({ approvals: '1', approvals_required: '2', approved_by: 'ops2' });

    const got = tsvRecord((await t.svc(['pending', 'get', id])).stdout);
    expect(got).toMatchObject({ status: 'pending_approval', approvals: '1', approvals_required: '2', approved_by: 'key "ops2" of @alice' });
    const record = await runCli(['pending', 'get', id], { env: t.env, tty: { stdout: true }, columns: 120 });
    expect(record.stdout).toMatch(/^Approvals +1 of 2: key "ops2" of @alice$/m);

    expect((await as('ops2', ['pending', 'approve', id])).code).toBe(5); // already approved: recorded as such
    expect((await as('ops3', ['pending', 'approve', id])).code).toBe(0);
    const log = await t.svcJson<Array<Record<string, unknown>>>(['pending', 'log', '--limit', '3']);
    expect(log.map((e) => [e.profile, e.result, e.key_name, e.approvals, e.approvals_required])).toEqual([
      ['ops3', 'approved', 'ops3', 2, 2],
      ['ops2', 'already_approved', undefined, undefined, undefined],
      ['ops2', 'partial', 'ops2', 1, 2],
    ]);
    expect(log.every((e) => e.transaction_id === id && e.decision === 'approve')).toBe(true);
    const shown = await runCli(['pending', 'log', '--limit', '3'], { env: t.env, tty: { stdout: true }, columns: 200 });
    expect(shown.stdout).toMatch(/ approved \(2 of 2\) +ops3 +txn_/m);
    expect(shown.stdout).toMatch(/ partial \(1 of 2\) +ops2 +txn_/m);
  });

  it('--notify-command is told the approvals so far and whose (SVC_APPROVALS, SVC_APPROVALS_REQUIRED, SVC_APPROVED_BY)', async () => {
    for (const p of await t.svcJson<Array<{ transaction_id: string }>>(['pending', 'ls'])) await ok(['pending', 'reject', p.transaction_id]);
    const dir = mkdtempSync(join(tmpdir(), 'svc-quorum-notify-'));
    const out = join(dir, 'told.txt');
    try {
      const clock = gatedClock();
      const stop = new AbortController();
      const prompter = scriptedPrompter(['skip']);
      let stderr = '';
      const run = runCli(['pending', 'review', '--watch', '--interval', '1s', '--notify-command', 'env | grep "^SVC_APPROV" | sort > "$OUT"'], {
        env: { ...t.env, OUT: out }, clock, prompter, tty: { stdin: true, stdout: true }, interrupt: stop.signal, onStderr: (s) => (stderr += s),
      });
      await clock.asleep(); // the queue read once (empty): waiting for new ones
      const id = await hold('62');
      expect((await as('ops2', ['pending', 'approve', id])).code).toBe(0); // before this review sees it
      clock.release();
      await until(() => prompter.asked.length === 1 && readable(out));
      stop.abort('SIGINT');
      // The gated clock does not end a wait on Ctrl-C by itself: let the review's pause end.
      let ended = false;
      void run.finally(() => (ended = true));
      while (!ended) {
        clock.release();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const r = await run;
      expect(r.code, stderr).toBe(130);
      expect(readFileSync(out, 'utf8')).toBe('SVC_APPROVALS=1\nSVC_APPROVALS_REQUIRED=2\nSVC_APPROVED_BY=key "ops2" of @alice\n');
      expect(prompter.reviews[0]!.details).toContain('approvals    1 of 2 so far: key "ops2" of @alice');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the agent follows it to the end', () => {
  it('pending wait: through 1 of 2 (said as it comes) to the second approval: exit 0, approved, who completed it', async () => {
    const id = await hold();
    const w = asAgent(['pending', 'wait', id]);
    await w.clock.asleep();
    expect((await as('ops2', ['pending', 'approve', id])).code).toBe(0);
    w.clock.release();
    await w.clock.asleep(); // read again: still pending, with one approval
    expect(w.stderr()).toContain(`waiting for a decision on held transaction ${id}: 1 of 2 approvals (key "ops2" of @alice); waiting for another approver\n`);
    expect((await as('ops3', ['pending', 'approve', id])).code).toBe(0);
    w.clock.release();
    const r = await w.done;
    expect(r.code, r.stderr).toBe(0);
    expect(tsvRecord(r.stdout)).toMatchObject({ transaction_id: id, status: 'approved', decided_by_key: 'ops3', approvals: '2', approvals_required: '2' });
    expect(r.stderr).toMatch(new RegExp(`^approved ${id} by key "ops3" of @alice \\(2 of 2 approvals: keys "ops2" and "ops3" of @alice\\): submitted as transfer tr_\\w+$`, 'm'));
  });

  it('transfer send --wait: held for two people, waits through the first approval, exit 0 once the second is in and the transfer settled', async () => {
    const s = asAgent(['transfer', 'send', '@acme', '70', '--wait']);
    await s.clock.asleep();
    const id = TXN_RE.exec(s.stderr())![0];
    expect(s.stderr()).toContain(`waits for 2 people of the owner's account (each with their own key) to approve it until `);
    expect((await as('ops2', ['pending', 'approve', id])).code).toBe(0);
    s.clock.release();
    await s.clock.asleep();
    expect(s.stderr()).toContain(`waiting for a human to approve ${id}: 1 of 2 approvals (key "ops2" of @alice); waiting for another approver\n`);
    expect((await as('ops3', ['pending', 'approve', id])).code).toBe(0);
    s.clock.release();
    await s.clock.asleep(); // approved: now waiting for the transfer to settle
    expect(s.stderr()).toMatch(new RegExp(`^approved ${id} by key "ops3" of @alice \\(2 of 2 approvals: .*\\): submitted as transfer tr_\\w+$`, 'm'));
    await t.sandbox.advance(BLOCK);
    s.clock.release();
    const r = await s.done;
    expect(r.code, r.stderr).toBe(0);
    expect(tsvRecord(r.stdout)).toMatchObject({ status: 'confirmed', from: '@alice/bot', transaction_id: id });
  });

  it('approve then reject: the agent\'s wait ends rejected (exit 6), saying one reject ends it; nothing was paid', async () => {
    const id = await hold();
    const before = await agentTransfers();
    const w = asAgent(['pending', 'wait', id]);
    await w.clock.asleep();
    expect((await as('ops2', ['pending', 'approve', id])).code).toBe(0);
    expect((await as('ops3', ['pending', 'reject', id, '--reason', 'not this vendor'])).code).toBe(0);
    w.clock.release();
    const r = await w.done;
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(new RegExp(`^error: held transaction ${id} was rejected by key "ops3" of @alice at \\S+: "not this vendor" \\(after 1 of 2 approvals: one reject ends it\\); nothing was sent \\(transaction_rejected\\)$`, 'm')); // the reason once
    expect(await agentTransfers()).toBe(before);
  });
});

function readable(file: string): boolean {
  try {
    return readFileSync(file, 'utf8').includes('SVC_APPROVED_BY');
  } catch {
    return false;
  }
}

/** Waits for a condition on files or state, checking on each turn of the event loop. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}
