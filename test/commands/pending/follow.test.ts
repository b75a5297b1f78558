// The agent's side of the approval loop (docs/agents.md "Waiting for a human from a script"), as
// the agent's script and the approver see it: `pending get` / `pending wait` / `pending ls --all`
// with the agent's key and the owner's, `transfer send --wait` with an agent's key through the
// human's decision to settlement, and what happens against a service that lacks these routes.
// Two commands run at once in this process: the agent's waits on a gatedClock (its sleeps end
// when the test says), so the test waits on events (it has read once; the owner has decided),
// never on time. One spawned test runs the real binary against the owner in another process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatedClock, runCli, virtualClock } from '../../helpers/cli.js';
import { spawnSvc } from '../../helpers/run.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { startScriptedServer, UNKNOWN_TEST_KEY, type Handler } from '../../helpers/scripted-server.js';

const TXN_RE = /txn_[A-Za-z0-9]{24}/;
const BLOCK = 60_000; // startTestSandbox's block time: a transfer settles when the test advances it

let t: TestSandbox;
/** The agent's environment: its own key and its own decryption key. */
let agent: Record<string, string>;

function ok(args: string[], env: Record<string, string> = {}) {
  return t.svcOk(args, { env });}

/** The agent proposes a transfer above its threshold: held (exit 8); its id. */
async function hold(amount = '60', memo?: string): Promise<string> {
  const r = await t.svc(['--json', 'transfer', 'send', '@acme', amount, ...(memo ? ['--memo', memo] : [])], { env: agent });
  expect(r.code, r.stderr).toBe(8);
  return TXN_RE.exec(r.stdout)![0];
}

/** Runs a command as the agent on a gated clock, collecting stderr as it is written. */
function asAgent(args: string[], env: Record<string, string> = {}) {
  const clock = gatedClock();
  let stderr = '';
  const done = runCli(args, { env: { ...t.env, ...agent, ...env }, clock, onStderr: (s) => (stderr += s) });
  return { clock, done, stderr: () => stderr };
}

const tmp = () => mkdtempSync(join(tmpdir(), 'svc-follow-'));
const tsvRecord = (out: string) => Object.fromEntries(out.trim().split('\n').map((l) => l.split('\t') as [string, string]));

beforeAll(async () => {
  t = await startTestSandbox();
  const created = await ok(['agent', 'create', 'bot', '--hitl-threshold', '50']);
  const decryptionKey = /shown ONCE[^\n]*\n\s+(\S+)/.exec(created.stderr)?.[1];
  expect(decryptionKey).toBeDefined();
  const key = (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
  await ok(['sandbox', 'fund', '@alice/bot', '1000']);
  agent = { SVC_API_KEY: key, SVC_DECRYPTION_KEY: decryptionKey! };
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('pending get: the agent and the owner read a held transaction', () => {
  it('the agent sees it with its amount and memo decrypted with its own key; the owner with theirs; --json is the object', async () => {
    const id = await hold('61.528407', 'invoice 9');
    const mine = await t.svc(['pending', 'get', id], { env: agent });
    expect(mine.code, mine.stderr).toBe(0);
    expect(tsvRecord(mine.stdout)).toMatchObject({
      transaction_id: id, status: 'pending_approval', agent: '@alice/bot', to: '@acme', amount: '61.528407', asset: 'USDG', memo: 'invoice 9',
      rule: 'hitl_threshold', hitl_threshold_usdc: '50',
    });
    const owner = await t.svc(['pending', 'get', id]);
    expect(tsvRecord(owner.stdout)).toMatchObject({ transaction_id: id, amount: '61.528407', memo: 'invoice 9' });
    const json = await t.svc(['--json', 'pending', 'get', id], { env: agent });
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ transaction_id: id, status: 'pending_approval', amount_ciphertext: expect.any(String) });
    expect(doc).not.toHaveProperty('amount');
    expect(json.stdout).not.toMatch(/61\.528407|61528407/);
    const opened = JSON.parse((await t.svc(['--json', 'pending', 'get', id, '--decrypt'], { env: agent })).stdout);
    expect(opened).toMatchObject({ amount: '61.528407', memo: 'invoice 9' });
    // Without a decryption key it says so instead of guessing.
    const blind = await t.svc(['pending', 'get', id], { env: { SVC_API_KEY: agent.SVC_API_KEY! } });
    expect(tsvRecord(blind.stdout)).toMatchObject({ amount: 'encrypted', memo: 'encrypted' });
  });

  it('a table on a terminal: who decided, when, and the transfer it made', async () => {
    const id = await hold();
    expect((await t.svc(['pending', 'approve', id])).code).toBe(0);
    const r = await runCli(['pending', 'get', id], { env: { ...t.env, ...agent }, tty: { stdout: true }, columns: 120 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^\\[TEST\\] held transaction ${id}\\n`));
    expect(r.stdout).toMatch(/^Status +approved$/m);
    expect(r.stdout).toMatch(/^Amount +60\.00 USDG$/m);
    expect(r.stdout).toMatch(/^Held +above the approval threshold \(hitl_threshold_usdc 50\)$/m);
    expect(r.stdout).toMatch(/^Decided by +key "seed" of @alice$/m);
    expect(r.stdout).toMatch(/^Transfer ID +tr_\w+$/m);
  });

  it("another account's key: 404 transaction_not_found (exit 4), with the next command", async () => {
    const id = await hold();
    const r = await t.svc(['pending', 'get', id], { env: { SVC_API_KEY: t.keyOf('@acme') } });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/\(transaction_not_found, request req_\w+\)\nhint: check the id .*svc pending ls --all/);
  });

  it('an agent may read and wait, never decide: approve and reject with its key are forbidden (exit 3)', async () => {
    const id = await hold();
    for (const verb of ['approve', 'reject']) {
      const r = await t.svc(['--json', 'pending', verb, id], { env: agent });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'forbidden' } });
    }
    expect(tsvRecord((await t.svc(['pending', 'get', id], { env: agent })).stdout).status).toBe('pending_approval');
  });

  it('transfer get of a txn_ id points at pending get', async () => {
    const id = await hold();
    const r = await t.svc(['transfer', 'get', id], { env: agent });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`hint: ${id} looks like a held agent transaction, not a transfer: \`svc pending get ${id}\` shows it, \`svc pending wait ${id}\` waits for the decision`);
  });
});

describe('pending wait: blocks until a human decides', () => {
  it('exit 0 when the owner approves meanwhile (another command): the resource with its transfer id', async () => {
    const id = await hold();
    const w = asAgent(['pending', 'wait', id]);
    await w.clock.asleep(); // it has read it: still pending
    const approved = await t.svc(['pending', 'approve', id]);
    expect(approved.code, approved.stderr).toBe(0);
    w.clock.release();
    const r = await w.done;
    expect(r.code, r.stderr).toBe(0);
    const rec = tsvRecord(r.stdout);
    expect(rec).toMatchObject({ transaction_id: id, status: 'approved', decided_by_key: 'seed', decided_by_account: '@alice', transfer_id: expect.stringMatching(/^tr_/) });
    expect(r.stderr).toContain(`approved ${id} by key "seed" of @alice: submitted as transfer ${rec.transfer_id}\n`);
  });

  it('exit 6 transaction_rejected when the owner rejects; --json: one error object naming it, nothing on stdout', async () => {
    const id = await hold();
    const w = asAgent(['--json', 'pending', 'wait', id]);
    await w.clock.asleep();
    expect((await t.svc(['pending', 'reject', id])).code).toBe(0);
    w.clock.release();
    const r = await w.done;
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'transaction_rejected', transaction_id: id, status: 'rejected' } });
    const plain = await runCli(['pending', 'wait', id], { env: { ...t.env, ...agent }, clock: virtualClock() });
    expect(plain.code).toBe(6);
    expect(plain.stderr).toMatch(new RegExp(`^error: held transaction ${id} was rejected by key "seed" of @alice at \\S+; nothing was sent \\(transaction_rejected\\)$`, 'm'));
  });

  it('exit 5 transaction_expired once the window closes on the sandbox clock', async () => {
    const id = await hold();
    const w = asAgent(['pending', 'wait', id]);
    await w.clock.asleep();
    await t.sandbox.advance(15 * 60_000);
    w.clock.release();
    const r = await w.done;
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error: held transaction ${id} expired at \\S+ without a decision; nothing was sent \\(transaction_expired\\)$`, 'm'));
  });

  it('exit 7 wait_timeout when --timeout-wait runs out, still pending; it polled with backoff', async () => {
    const id = await hold();
    const clock = virtualClock();
    const r = await runCli(['pending', 'wait', id, '--timeout-wait', '1m'], { env: { ...t.env, ...agent }, clock });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(new RegExp(`^error: gave up waiting for held transaction ${id} after 1m: it is still pending_approval .*\\(wait_timeout\\)$`, 'm'));
    expect(r.stderr).toContain(`hint: a human may still decide; follow it with \`svc pending wait ${id}\``);
    expect(clock.slept.slice(0, 4)).toEqual([500, 1000, 2000, 4000]);
    expect(Math.max(...clock.slept)).toBe(5000);
    expect(clock.slept.reduce((a, b) => a + b, 0)).toBe(60_000);
  });

  it('Ctrl-C stops the waiting, not the held transaction (exit 130, how to follow it again)', async () => {
    const id = await hold();
    const clock = gatedClock();
    const ctrlC = new AbortController();
    const done = runCli(['--json', 'pending', 'wait', id], { env: { ...t.env, ...agent }, clock, interrupt: ctrlC.signal });
    await clock.asleep();
    ctrlC.abort();
    const r = await done;
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'interrupted', transaction_id: id, hint: `follow it again with \`svc pending wait ${id}\`` });
    expect(tsvRecord((await t.svc(['pending', 'get', id], { env: agent })).stdout).status).toBe('pending_approval');
  });

  it('--timeout-wait is checked before anything is sent', async () => {
    const r = await t.svc(['pending', 'wait', 'txn_x', '--timeout-wait', 'soon'], { env: agent });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --timeout-wait "soon" must be a duration/);
  });
});

describe('pending ls --all / --status: the history', () => {
  it('all four states, newest first; the owner sees them all, the agent its own; --status filters', async () => {
    const fresh = await startTestSandbox();
    try {
      const run = (args: string[], env: Record<string, string> = {}) => fresh.svc(args, { env });
      expect((await run(['agent', 'create', 'bot', '--hitl-threshold', '5'])).code).toBe(0);
      const key = (await run(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
      expect((await run(['sandbox', 'fund', '@alice/bot', '100'])).code).toBe(0);
      const send = async () => TXN_RE.exec((await run(['--json', 'transfer', 'send', '@acme', '10'], { SVC_API_KEY: key })).stdout)![0];
      const expired = await send();
      await fresh.sandbox.advance(16 * 60_000);
      const approved = await send();
      await fresh.sandbox.advance(1000);
      const rejected = await send();
      await fresh.sandbox.advance(1000);
      const pending = await send();
      expect((await run(['pending', 'approve', approved])).code).toBe(0);
      expect((await run(['pending', 'reject', rejected])).code).toBe(0);

      const tsv = await run(['pending', 'ls', '--all']);
      expect(tsv.code, tsv.stderr).toBe(0);
      const [header, ...lines] = tsv.stdout.trim().split('\n');
      expect(header!.split('\t').slice(0, 5)).toEqual(['transaction_id', 'status', 'agent', 'to', 'asset']);
      expect(lines.map((l) => l.split('\t').slice(0, 2))).toEqual([[pending, 'pending_approval'], [rejected, 'rejected'], [approved, 'approved'], [expired, 'expired']]);
      const json = JSON.parse((await run(['--json', 'pending', 'ls', '--all'], { SVC_API_KEY: key })).stdout) as Array<{ transaction_id: string; status: string }>;
      expect(json.map((x) => x.transaction_id)).toEqual([pending, rejected, approved, expired]);
      expect(JSON.parse((await run(['--json', 'pending', 'ls', '--status', 'rejected'], { SVC_API_KEY: key })).stdout).map((x: { transaction_id: string }) => x.transaction_id)).toEqual([rejected]);
      // The queue itself is unchanged: only what can still be decided.
      expect(JSON.parse((await run(['--json', 'pending', 'ls'])).stdout).map((x: { transaction_id: string }) => x.transaction_id)).toEqual([pending]);
      const bad = await run(['pending', 'ls', '--status', 'held']);
      expect([bad.code, bad.stderr]).toEqual([2, 'error: --status "held" must be one of pending_approval, approved, rejected, expired (invalid_argument)\n']);
    } finally {
      await fresh.close();
    }
  });
});

describe('transfer send --wait with an agent\'s key: one command a cron job can trust', () => {
  /** Starts the agent's send, and resolves with the held transaction id once it is waiting for the human. */
  async function sendAndWait(extra: string[] = []) {
    const s = asAgent(['transfer', 'send', '@acme', '70', '--wait', ...extra]);
    await s.clock.asleep();
    const id = TXN_RE.exec(s.stderr())?.[0];
    expect(id, s.stderr()).toBeDefined();
    return { ...s, id: id! };
  }

  it('says it is held, waits for the human, then for settlement: exit 0 and the transfer only when the money moved', async () => {
    const s = await sendAndWait();
    expect(s.stderr()).toMatch(new RegExp(`^held for approval: ${s.id} is above the agent's approval threshold and waits for a human to approve it until \\S+ \\(the account owner runs \`svc pending approve ${s.id}\`\\); accepted under idempotency key \\S+$`, 'm'));
    expect((await t.svc(['pending', 'approve', s.id])).code).toBe(0);
    s.clock.release();
    await s.clock.asleep(); // now waiting for the transfer to settle
    expect(s.stderr()).toMatch(new RegExp(`^approved ${s.id} by key "seed" of @alice: submitted as transfer tr_\\w+$`, 'm'));
    await t.sandbox.advance(BLOCK);
    s.clock.release();
    const r = await s.done;
    expect(r.code, r.stderr).toBe(0);
    const rec = tsvRecord(r.stdout);
    expect(rec).toMatchObject({ status: 'confirmed', from: '@alice/bot', to: '@acme', transaction_id: s.id });
    expect(rec.transfer_id).toMatch(/^tr_/);
  });

  it('--json: stderr stays empty while it waits; stdout is the transfer, with the transaction it was held as and its key', async () => {
    const s = asAgent(['--json', 'transfer', 'send', '@acme', '71', '--wait', '--idempotency-key', 'cron-json-1']);
    await s.clock.asleep();
    expect(s.stderr()).toBe('');
    const queue = JSON.parse((await t.svc(['--json', 'pending', 'ls'])).stdout) as Array<{ transaction_id: string }>;
    const id = queue.at(-1)!.transaction_id;
    expect((await t.svc(['pending', 'approve', id])).code).toBe(0);
    s.clock.release();
    await s.clock.asleep();
    await t.sandbox.advance(BLOCK);
    s.clock.release();
    const r = await s.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ transfer_id: expect.stringMatching(/^tr_/), status: 'confirmed', transaction_id: id, idempotency_key: 'cron-json-1' });
  });

  it('rejected: exit 6, the error names the transaction and the idempotency key', async () => {
    const s = await sendAndWait(['--idempotency-key', 'cron-reject-1']);
    expect((await t.svc(['pending', 'reject', s.id])).code).toBe(0);
    s.clock.release();
    const r = await s.done;
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error: held transaction ${s.id} was rejected by key "seed" of @alice at \\S+; nothing was sent; idempotency key cron-reject-1 \\(transaction_rejected\\)$`, 'm'));
  });

  it('expired: exit 5; --json: one error object with transaction_id and idempotency_key', async () => {
    const s = await sendAndWait(['--idempotency-key', 'cron-expire-1']);
    await t.sandbox.advance(15 * 60_000);
    s.clock.release();
    const r = await s.done;
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/\(transaction_expired\)\n/);
    // Run again under its key: it is not held again, it reads the expiry at once.
    const jr = await runCli(['--json', 'transfer', 'send', '@acme', '70', '--wait', '--idempotency-key', 'cron-expire-1'], { env: { ...t.env, ...agent }, clock: virtualClock() });
    expect(jr.code).toBe(5);
    expect(jr.stdout).toBe('');
    const err = JSON.parse(jr.stderr).error;
    expect(err).toMatchObject({ code: 'transaction_expired', transaction_id: s.id, idempotency_key: 'cron-expire-1' });
  });

  it('Ctrl-C while it waits for the human: exit 130, naming the transaction and the key', async () => {
    const clock = gatedClock();
    const ctrlC = new AbortController();
    const done = runCli(['--json', 'transfer', 'send', '@acme', '70', '--wait', '--idempotency-key', 'cron-ctrlc-1'], { env: { ...t.env, ...agent }, clock, interrupt: ctrlC.signal });
    await clock.asleep();
    ctrlC.abort();
    const r = await done;
    expect(r.code).toBe(130);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'interrupted', transaction_id: expect.stringMatching(TXN_RE), idempotency_key: 'cron-ctrlc-1', hint: expect.stringContaining('svc pending wait txn_') });
  });

  it('--timeout-wait bounds the whole wait: exit 7 wait_timeout naming the transaction and its key', async () => {
    const clock = virtualClock();
    const r = await runCli(['--json', 'transfer', 'send', '@acme', '70', '--wait', '--timeout-wait', '30s', '--idempotency-key', 'cron-slow-1'], { env: { ...t.env, ...agent }, clock });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'wait_timeout', transaction_id: expect.stringMatching(TXN_RE), idempotency_key: 'cron-slow-1' });
    expect(clock.slept.reduce((a, b) => a + b, 0)).toBe(30_000);
  });

  it('a rerun of a held send under its key follows it (no second hold); without --wait it stays exit 8', async () => {
    const first = await t.svc(['--json', 'transfer', 'send', '@acme', '80', '--idempotency-key', 'cron-rerun-1'], { env: agent });
    expect(first.code).toBe(8);
    const id = TXN_RE.exec(first.stdout)![0];
    const again = await t.svc(['transfer', 'send', '@acme', '80', '--idempotency-key', 'cron-rerun-1'], { env: agent });
    expect(again.code).toBe(8);
    expect((await t.svc(['pending', 'approve', id])).code).toBe(0);
    const s = asAgent(['transfer', 'send', '@acme', '80', '--idempotency-key', 'cron-rerun-1', '--wait']);
    await s.clock.asleep(); // approved already: now waiting for the transfer
    expect(s.stderr()).toContain(`already sent under idempotency key cron-rerun-1`);
    expect(s.stderr()).toMatch(new RegExp(`^approved ${id} by key "seed" of @alice: submitted as transfer tr_\\w+$`, 'm'));
    await t.sandbox.advance(BLOCK);
    s.clock.release();
    const r = await s.done;
    expect(r.code, r.stderr).toBe(0);
    expect(tsvRecord(r.stdout)).toMatchObject({ status: 'confirmed', transaction_id: id });
    // Said once, and this run submitted nothing.
    expect(r.stderr.match(/already sent under idempotency key/g)).toHaveLength(1);
    expect(r.stderr).not.toContain('submitted transfer');
    const history = JSON.parse((await t.svc(['--json', 'pending', 'ls', '--all'], { env: agent })).stdout) as Array<{ transaction_id: string }>;
    expect(history.filter((h) => h.transaction_id === id)).toHaveLength(1);
  });

  it('a held send approved and settled since: the same command (no --wait) prints the transfer and exits 0, as a cron job would see it all month', async () => {
    const cmd = ['transfer', 'send', '@acme', '81', '--idempotency-key', 'rent-2026-11'];
    const first = await t.svc(['--json', ...cmd], { env: agent });
    expect(first.code).toBe(8);
    const id = TXN_RE.exec(first.stdout)![0];
    expect((await t.svc(['pending', 'approve', id])).code).toBe(0);
    await t.sandbox.advance(BLOCK); // the money moved
    for (let run = 0; run < 2; run++) {
      const again = await t.svc(cmd, { env: agent });
      expect(again.code, again.stderr).toBe(0);
      expect(tsvRecord(again.stdout)).toMatchObject({ status: 'confirmed', transaction_id: id, transfer_id: expect.stringMatching(/^tr_\w+$/) });
      expect(again.stderr).toMatch(/^already sent under idempotency key rent-2026-11 on \S+: held transaction txn_\w+ .*; not sent again$/m);
    }
    const json = JSON.parse((await t.svc(['--json', ...cmd], { env: agent })).stdout);
    expect(json).toMatchObject({ status: 'confirmed', transaction_id: id, idempotency_key: 'rent-2026-11' });
  });

  it('a held send the owner rejected: the same command exits 6 (transaction_rejected) naming the transaction and its key; nothing new is held', async () => {
    const cmd = ['--json', 'transfer', 'send', '@acme', '82', '--idempotency-key', 'rent-rejected'];
    const first = await t.svc(cmd, { env: agent });
    expect(first.code).toBe(8);
    const id = TXN_RE.exec(first.stdout)![0];
    expect((await t.svc(['pending', 'reject', id, '--reason', 'not this month'])).code).toBe(0);
    const waiting = (await t.svcJson<unknown[]>(['pending', 'ls'])).length;
    const again = await t.svc(cmd, { env: agent });
    expect(again.code).toBe(6);
    expect(again.stdout).toBe('');
    expect(JSON.parse(again.stderr).error).toMatchObject({ code: 'transaction_rejected', transaction_id: id, idempotency_key: 'rent-rejected', reason: 'not this month' });
    expect((await t.svcJson<unknown[]>(['pending', 'ls'])).length).toBe(waiting);
  });
});

describe('a service without the held-transaction routes: said in one line, a clear code', () => {
  const HELD = { transaction_id: 'txn_1', status: 'pending_approval', expires_at: '2099-01-01T00:00:00Z' };
  const AGENT_ACCOUNT = { account_id: 'acct_bot', handle: '@alice/bot', type: 'agent', public_key: `0x${'2'.repeat(40)}`, kyc_status: 'verified' };
  /** A spec-only service: 202 for the held send, and a route it does not have answers `missing`. */
  const specOnly = (missing: 404 | 405): Handler => (req) => {
    if (req.method === 'GET' && req.url === '/v1/accounts/me') return { status: 200, body: AGENT_ACCOUNT };
    if (req.method === 'POST' && req.url === '/v1/transfers') return { status: 202, body: HELD };
    return missing === 404 ? { status: 404, body: '<html>Not Found</html>' } : { status: 405, body: { error: { code: 'method_not_allowed', message: 'no' } } };
  };

  for (const missing of [404, 405] as const) {
    it(`${missing}: pending get / wait / ls --all and send --wait say the service does not offer it (unsupported_by_service, exit 1)`, async () => {
      const s = await startScriptedServer(specOnly(missing));
      try {
        const env = { SVC_CONFIG_DIR: tmp(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: s.url, NO_COLOR: '1' };
        for (const args of [['pending', 'get', 'txn_1'], ['pending', 'wait', 'txn_1'], ['pending', 'ls', '--all']]) {
          const r = await runCli(args, { env, clock: virtualClock() });
          expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
          expect(r.stdout).toBe('');
          const lines = r.stderr.trim().split('\n');
          expect(lines[0]).toMatch(/^error: this service does not offer reading held transactions \(a svc extension beyond the spec, docs\/agents\.md\): cannot .+ \(unsupported_by_service\)$/);
          expect(lines.filter((l) => l.startsWith('error:'))).toHaveLength(1);
        }
        const sent = await runCli(['--json', 'transfer', 'send', '@acme', '70', '--wait', '--idempotency-key', 'old-service-1'], { env, clock: virtualClock() });
        expect(sent.code).toBe(1);
        expect(sent.stdout).toBe('');
        expect(JSON.parse(sent.stderr).error).toMatchObject({
          code: 'unsupported_by_service', transaction_id: 'txn_1', idempotency_key: 'old-service-1',
          hint: expect.stringContaining('`svc --profile <owner-profile> pending approve txn_1`'),
        });
      } finally {
        await s.close();
      }
    });
  }

  it("the spec's own 404 transaction_not_found is not found (exit 4), not unsupported", async () => {
    const s = await startScriptedServer(() => ({ status: 404, body: { error: { code: 'transaction_not_found', message: 'no such transaction' } } }));
    try {
      const r = await runCli(['pending', 'get', 'txn_1'], { env: { SVC_CONFIG_DIR: tmp(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: s.url } });
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/\(transaction_not_found\)\n/);
    } finally {
      await s.close();
    }
  });

  it('pending wait rides out a service that goes away (5xx, dropped connections) and comes back', async () => {
    const resource = (status: string) => ({
      transaction_id: 'txn_1', status, agent: '@alice/bot', to: '@acme', asset: 'USDG', requested_at: '2024-01-01T00:00:00Z', expires_at: '2099-01-01T00:00:00Z',
      ...(status === 'approved' ? { decided_at: '2024-01-01T00:01:00Z', transfer_id: 'tr_1', decided_by: { key_name: 'laptop', account: '@alice' } } : {}),
    });
    // Read 1 pending; then 3 tries answered 503 and 3 dropped (two failed reads); then approved.
    const s = await startScriptedServer((_req, n) => (n === 1 ? { status: 200, body: resource('pending_approval') } : n <= 4 ? { status: 503, body: 'busy' } : n <= 7 ? 'reset' : { status: 200, body: resource('approved') }));
    try {
      const r = await runCli(['pending', 'wait', 'txn_1'], { env: { SVC_CONFIG_DIR: tmp(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: s.url }, clock: virtualClock() });
      expect(r.code, r.stderr).toBe(0);
      expect(tsvRecord(r.stdout)).toMatchObject({ status: 'approved', transfer_id: 'tr_1' });
      expect(r.stderr).toMatch(/^waiting for a decision on held transaction txn_1: reconnecting… \(.+\)$/m);
      expect(r.stderr).toMatch(/^waiting for a decision on held transaction txn_1: reconnected$/m);
      expect(r.stderr).toContain('approved txn_1 by key "laptop" of @alice: submitted as transfer tr_1\n');
    } finally {
      await s.close();
    }
  });
});

describe('the real binary', () => {
  it('an agent\'s `transfer send --wait` in one process ends 0 with the transfer id after the owner approves from another', async () => {
    // Settles on its own in real time: the waiting process polls with its real clock.
    const live = await startTestSandbox({ blockTimeMs: 200 });
    try {
      expect((await live.svc(['agent', 'create', 'bot', '--hitl-threshold', '5'])).code).toBe(0);
      const key = (await live.svc(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
      expect((await live.svc(['sandbox', 'fund', '@alice/bot', '100'])).code).toBe(0);
      const sender = spawnSvc(['transfer', 'send', '@acme', '10', '--wait'], { ...live.env, SVC_API_KEY: key });
      await sender.waitFor('stderr', /held for approval: txn_\w+/);
      const id = /held for approval: (txn_\w+)/.exec(sender.stderr())![1]!;
      const approver = spawnSvc(['pending', 'approve', id], live.env);
      expect((await approver.exited).code).toBe(0);
      const r = await sender.exited;
      expect(r.code, r.stderr).toBe(0);
      const rec = tsvRecord(r.stdout);
      expect(rec).toMatchObject({ status: 'confirmed', transaction_id: id, transfer_id: expect.stringMatching(/^tr_/) });
      expect(r.stderr).toContain(`approved ${id} by key "seed" of @alice: submitted as transfer ${rec.transfer_id}\n`);
    } finally {
      await live.close();
    }
  }, 60_000);
});

describe('after the approval, the transfer it made is followed without reading it twice in a row', () => {
  it('every read of the transfer after the first comes after a pause of --wait (no back-to-back GET)', async () => {
    const AGENT_ACCOUNT = { account_id: 'acct_bot', handle: '@alice/bot', type: 'agent', public_key: `0x${'2'.repeat(40)}`, kyc_status: 'verified' };
    const held = { transaction_id: 'txn_1', agent: '@alice/bot', to: '@acme', requested_at: '2030-01-01T00:00:00Z', expires_at: '2099-01-01T00:00:00Z' };
    const transfer = (status: string) => ({ transfer_id: 'tr_1', status, from: '@alice/bot', to: '@acme', confidential: true, tx_hash: '0x1', created_at: '2030-01-01T00:00:00Z' });
    let reads = 0;
    const server = await startScriptedServer((req) => {
      if (req.method === 'GET' && req.url === '/v1/accounts/me') return { status: 200, body: AGENT_ACCOUNT };
      if (req.method === 'POST' && req.url === '/v1/transfers') return { status: 202, body: { transaction_id: 'txn_1', status: 'pending_approval', expires_at: held.expires_at } };
      if (req.method === 'GET' && req.url === '/v1/agents/transactions/txn_1') return { status: 200, body: { ...held, status: 'approved', transfer_id: 'tr_1', decided_at: '2030-01-01T00:01:00Z' } };
      if (req.method === 'GET' && req.url === '/v1/transfers/tr_1') return { status: 200, body: transfer(++reads < 3 ? 'pending' : 'confirmed') };
      return { status: 404, body: { error: { code: 'not_found', message: 'no' } } };
    });
    try {
      const clock = virtualClock();
      const r = await runCli(['transfer', 'send', '@acme', '70', '--wait'], { env: { SVC_CONFIG_DIR: tmp(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: server.url, NO_COLOR: '1' }, clock });
      expect(r.code, r.stderr).toBe(0);
      expect(reads).toBe(3); // pending, pending, confirmed
      // Each read but the first follows one poll pause: the approval's read is the wait's first.
      expect(clock.slept.filter((ms) => ms === 250)).toHaveLength(reads - 1);
    } finally {
      await server.close();
    }
  });
});
