// What an approver's decision leaves behind, end to end in-process against a sandbox: `pending
// reject --reason` (the service keeps it; a bad one is exit 2 and nothing is sent) and the
// decisions in the approver's ledger in the config dir (`svc pending log`): one entry per decision
// the service took, refused for good, or may have taken, 0600 in a 0700 folder, never an amount
// or a memo.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { runCli } from '../../helpers/cli.js';
import { ledgerName } from '../../../src/core/ledger/ledger.js';

const TXN_RE = /txn_[A-Za-z0-9]{24}/;
/** Canaries: an amount and a memo that must never reach the log. */
const AMOUNT = '7319.4711';
const MEMO = 'canary-memo-5d2f';

let t: TestSandbox;
let agentKey = '';

function ok(args: string[], env: Record<string, string> = {}) {
  return t.svcOk(args, { env });}

async function hold(amount = AMOUNT): Promise<string> {
  const r = await t.svc(['--json', 'transfer', 'send', '@acme', amount, '--memo', MEMO], { env: { SVC_API_KEY: agentKey } });
  expect(r.code, r.stderr).toBe(8);
  return TXN_RE.exec(r.stdout)![0];
}

let aliceId = '';
/** The approver's ledger: the file of the sandbox's base URL and @alice's account. */
const logFile = () => join(t.configDir, 'ledger', `${ledgerName({ baseUrl: new URL(t.url).href, accountId: aliceId })}.jsonl`);
const exported = async (id: string) => {
  const res = await fetch(`${t.url}/_sandbox/export`, { headers: { 'x-sandbox-admin-token': t.sandbox.adminToken } });
  const doc = (await res.json()) as { held: Array<{ transaction_id: string; status: string; reason?: string }> };
  return doc.held.find((h) => h.transaction_id === id);
};

beforeAll(async () => {
  t = await startTestSandbox();
  await ok(['agent', 'create', 'bot', '--hitl-threshold', '50']);
  agentKey = (await ok(['sandbox', 'key', 'create', '--account', '@alice/bot'])).stdout.trim();
  aliceId = (await t.svcJson<{ account_id: string }>(['account'])).account_id;
  await ok(['sandbox', 'fund', '@alice/bot', '100000']);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('pending reject --reason', () => {
  it('sends it; the receipt restates it, --json has the service\'s object with it, and the service keeps it', async () => {
    const id = await hold();
    const r = await t.svc(['pending', 'reject', id, '--reason', '  wrong vendor: see ticket 42  ']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('\n  reason       wrong vendor: see ticket 42\n');
    expect((await exported(id))).toMatchObject({ status: 'rejected', reason: 'wrong vendor: see ticket 42' });

    const other = await hold();
    const json = await t.svc(['--json', 'pending', 'reject', other, '--reason', 'duplicate']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ transaction_id: other, status: 'rejected', reason: 'duplicate' });
  });

  it('a reason shown on the terminal is sanitised', async () => {
    const id = await hold();
    const r = await t.svc(['pending', 'reject', id, '--reason', 'bad\u001b[2Jvendor']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('  reason       bad\\x1b[2Jvendor\n');
    expect(r.stderr).not.toContain('\u001b');
  });

  it('too long or empty: one line naming --reason and the rule, exit 2, nothing sent (still pending)', async () => {
    const id = await hold();
    for (const [reason, said] of [['x'.repeat(501), 'it has 501'], ['   ', 'it is empty']] as const) {
      const r = await t.svc(['pending', 'reject', id, '--reason', reason]);
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(`error: --reason must be a string of 1 to 500 characters: ${said} (invalid_argument)`);
    }
    expect((await exported(id))?.status).toBe('pending_approval');
    await ok(['pending', 'reject', id, '--reason', 'x'.repeat(500)]); // exactly the limit
  });
});

describe('the decisions in the ledger (`pending log`)', () => {
  it('records each decision the service took (and an approve refused as expired), newest first in `pending log`; 0600 in 0700; no amount, no memo', async () => {
    const approved = await hold();
    await ok(['pending', 'approve', approved]);
    const rejected = await hold();
    await ok(['pending', 'reject', rejected, '--reason', 'not today']);
    const late = await hold();
    await t.sandbox.advance(16 * 60_000);
    expect((await t.svc(['pending', 'approve', late])).code).toBe(5);
    expect((await t.svc(['pending', 'approve', 'txn_doesnotexist'])).code).toBe(4); // changed nothing: not recorded

    const log = await t.svcJson<Array<Record<string, unknown>>>(['pending', 'log', '--limit', '3']);
    expect(log).toHaveLength(3);
    expect(log[0]).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), transaction_id: late, decision: 'approve', result: 'expired',
      profile: 'sandbox', base_url: t.url, via: 'pending approve',
    });
    expect(log[1]).toEqual({
      time: expect.any(String), transaction_id: rejected, decision: 'reject', result: 'rejected', agent: '@alice/bot', to: '@acme',
      reason: 'not today', profile: 'sandbox', base_url: t.url, via: 'pending reject', key_name: 'seed',
    });
    expect(log[2]).toMatchObject({ transaction_id: approved, decision: 'approve', result: 'approved', agent: '@alice/bot', to: '@acme', transfer_id: expect.stringMatching(/^tr_/) });

    expect(statSync(logFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.configDir, 'ledger')).mode & 0o777).toBe(0o700);
    const text = readFileSync(logFile(), 'utf8');
    expect(text).not.toContain(AMOUNT);
    expect(text).not.toContain('7319471100');
    expect(text).not.toContain(MEMO);
    expect(text).not.toContain('svc_test_'); // no key either
  });

  it('a table on a terminal (UTC times), TSV when piped; --limit is checked', async () => {
    const tty = await runCli(['pending', 'log', '--limit', '2'], { env: t.env, tty: { stdout: true }, columns: 160 });
    expect(tty.code, tty.stderr).toBe(0);
    const lines = tty.stdout.trim().split('\n');
    // The decision is in RESULT where the result does not say it (`expired (approve)`); BY: the key, else the profile.
    expect(lines[0]).toMatch(/^TIME\s+RESULT\s+BY\s+TRANSACTION\s+AGENT\s+TO\s+REASON\s+TRANSFER$/);
    expect(lines.slice(1).join('\n')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+expired \(approve\)\s+\(profile sandbox\)\s+txn_/m);
    expect(lines).toHaveLength(3);
    const piped = await t.svc(['pending', 'log']);
    expect(piped.stdout.split('\n')[0]).toBe('time\tresult\tdecision\ttransaction_id\tagent\tto\treason\ttransfer_id\tprofile\tkey_name\tbase_url\tvia\tapprovals\tapprovals_required');
    for (const bad of ['0', 'x', '-1']) {
      const r = await t.svc(['pending', 'log', '--limit', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--limit "${bad}" must be a whole number of 1 or more`);
    }
  });

  it('a log that cannot be written (a link planted in its place) is one warning: the decision stands, exit 0, the link is not followed', async () => {
    const id = await hold();
    const target = join(t.configDir, 'elsewhere.txt');
    writeFileSync(target, '');
    const had = existsSync(logFile());
    if (had) renameSync(logFile(), `${logFile()}.moved`);
    else mkdirSync(join(t.configDir, 'ledger'), { recursive: true, mode: 0o700 });
    symlinkSync(target, logFile());
    try {
      const r = await t.svc(['pending', 'reject', id]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^warning: this decision is not recorded on this machine: .+\nrejected txn_\w+: .*discarded, no funds moved\n/);
      expect(readFileSync(target, 'utf8')).toBe('');
      expect((await exported(id))?.status).toBe('rejected');
    } finally {
      rmSync(logFile());
      if (had) renameSync(`${logFile()}.moved`, logFile());
    }
  });

  it('an empty log: [] with --json, a message on a terminal (exit 0)', async () => {
    const empty = await startTestSandbox();
    try {
      expect(await empty.svcJson(['pending', 'log'])).toEqual([]);
      const tty = await runCli(['pending', 'log'], { env: empty.env, tty: { stdout: true, stderr: true } });
      expect(tty.code).toBe(0);
      expect(tty.stderr).toContain('No decisions recorded on this machine yet');
    } finally {
      await empty.close();
    }
  });
});
