// `svc agent ...` and `svc pending ...` end to end: the built CLI against an in-process sandbox
// (block time 60 s: nothing settles unless the test advances the clock; never sleeps). Agent
// keys come from `svc sandbox key create --account @alice/<name>` and live in their own profile.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnSandbox, startTestSandbox, type RunResult, type TestSandbox } from '../../helpers/e2e.js';
import { svcIn } from '../../helpers/cli.js';
import { FAKE_LIVE_KEY, startScriptedServer } from '../../helpers/scripted-server.js';

const HOUR = 3_600_000;
const BLOCK = 60_000;
const TXN_RE = /txn_[A-Za-z0-9]{24}/;
const ISO_RE = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;

interface Agent {
  account_id: string;
  handle: string;
  status: string;
  spend_policy_id: string;
  public_key: string;
}
interface Pending {
  transaction_id: string;
  agent: string;
  to: string;
  requested_at: string;
  expires_at: string;
}

/** Parses `key<TAB>value` lines of a record printed as TSV (stdout is a pipe). */
function tsvRecord(stdout: string): Record<string, string> {
  const rec: Record<string, string> = {};
  for (const line of stdout.split('\n').filter(Boolean)) {
    const [k, ...rest] = line.split('\t');
    rec[k!] = rest.join('\t');
  }
  return rec;
}

function expectExit(r: RunResult, code: number): void {
  expect(r.code, `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(code);
}

/** Moves the sandbox clock to 06:00 UTC of the next day so nothing crosses midnight by accident. */
async function toMorning(t: TestSandbox): Promise<void> {
  const now = t.sandbox.now().getTime();
  const next = Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000 + 6 * HOUR;
  await t.sandbox.advance(next - now);
}

/** A key for an agent, in a profile named after it (as docs/agents.md shows), funded. */
async function agentProfile(t: TestSandbox, handle: string, profile: string, fund?: string): Promise<string> {
  const key = await t.svc(['sandbox', 'key', 'create', '--account', handle, '--name', profile]);
  expectExit(key, 0);
  const add = await t.svc(['--base-url', t.url, 'profile', 'add', profile, '--key-stdin'], { input: `${key.stdout.trim()}\n` });
  expectExit(add, 0);
  if (fund) expectExit(await t.svc(['sandbox', 'fund', handle, fund]), 0);
  return key.stdout.trim();
}

async function aliceCall(t: TestSandbox, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(t.url + path, {
    method,
    headers: { authorization: `Bearer ${t.keyOf('@alice')}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

const hasDecryptionKey = (t: TestSandbox) => Boolean(t.sandbox.seeded.find((a) => a.handle === '@alice')?.decryptionKey);

describe('svc agent create / ls / policy get / set / check', () => {
  let t: TestSandbox;
  let dir: string;
  beforeAll(async () => {
    t = await startTestSandbox();
    await toMorning(t);
    dir = mkdtempSync(join(tmpdir(), 'svc-e2e-agents-'));
  });
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('agent create with flags: the record on stdout, the decryption key and next step on stderr', async () => {
    const r = await t.svc([
      'agent', 'create', 'payroll-bot', '--daily-limit', '500', '--per-tx-limit', '100', '--hitl-threshold', '50',
      '--allow', '@acme', '--allow', '*.vendors.example', '--asset', 'usdg', '--active-hours', '00:00-23:59',
    ]);
    expectExit(r, 0);
    const rec = tsvRecord(r.stdout);
    expect(rec.handle).toBe('@alice/payroll-bot');
    expect(rec.status).toBe('active');
    expect(rec.account_id).toMatch(/^acct_/);
    expect(rec.spend_policy_id).toMatch(/^pol_/);
    expect(rec.public_key).toMatch(/^0x[0-9a-f]{40}$/);
    expect(r.stderr).toContain('created agent @alice/payroll-bot');
    expect(r.stderr).toContain('svc sandbox key create --account @alice/payroll-bot');
    expect(r.stderr).not.toContain('warning');
    if (hasDecryptionKey(t)) expect(r.stderr).toMatch(/shown ONCE[\s\S]*svc_dk_test_/);
    expect(r.stdout).not.toContain('svc_dk_'); // secrets never on stdout in table/TSV mode
  });

  it('warns on stderr about a policy that cannot do what was likely meant, and still creates it', async () => {
    const r = await t.svc(['agent', 'create', 'odd', '--per-tx-limit', '600', '--daily-limit', '500', '--hitl-threshold', '700']);
    expectExit(r, 0);
    expect(r.stderr).toMatch(/warning: the approval threshold \(700\.00\) is at or above the per-transaction limit \(600\.00\): nothing will ever be held/);
    expect(r.stderr).toMatch(/warning: the per-transaction limit \(600\.00\) is above the daily limit \(500\.00\)/);
    expect(r.stdout).not.toContain('warning');
  });

  it('agent create --policy-file (and --json): flags override the file', async () => {
    const file = join(dir, 'policy.json');
    writeFileSync(file, JSON.stringify({ spend_policy: { daily_limit_usdc: 250, assets: ['USDC'], active_hours: '22:00-06:00' } }));
    const created = await t.svcJson<Agent & { type: string }>(['agent', 'create', 'night-bot', '--policy-file', file, '--daily-limit', '300']);
    expect(created).toMatchObject({ handle: '@alice/night-bot', status: 'active', type: 'agent' });
    const policy = await t.svcJson<Record<string, unknown>>(['agent', 'policy', 'get', 'night-bot']);
    expect(policy).toMatchObject({ daily_limit_usdc: 300, assets: ['USDC'], active_hours: '22:00-06:00', policy_id: created.spend_policy_id });
    // A field the policy does not set is absent (no restriction), not null.
    expect(Object.keys(policy)).not.toContain('per_transaction_limit_usdc');
  });

  it('refuses bad input locally (exit 2) and a taken name (409 → exit 5)', async () => {
    const agentsBefore = (await t.svcJson<Agent[]>(['agent', 'ls'])).map((a) => a.handle);
    const badName = await t.svc(['agent', 'create', 'Bad.Name']);
    expectExit(badName, 2);
    expect(badName.stdout).toBe('');
    expect(badName.stderr).toMatch(/^error: agent name "Bad\.Name" must be .* \(invalid_agent_name\)\n$/);
    const badPolicy = await t.svc(['agent', 'create', 'x', '--daily-limit', '-5']);
    expectExit(badPolicy, 2);
    expect(badPolicy.stderr).toMatch(/^error: invalid policy: daily_limit_usdc must not be negative \(--daily-limit\) \(invalid_policy\)\n$/);
    const badHours = await t.svc(['agent', 'create', 'x', '--active-hours', '9-17']);
    expectExit(badHours, 2);
    expect(badHours.stderr).toMatch(/^error: invalid policy: .*\(--active-hours\) \(invalid_policy\)\n$/);
    const missing = await t.svc(['agent', 'create', 'x', '--policy-file', join(dir, 'nope.json')]);
    expectExit(missing, 2);
    expect(missing.stderr).toMatch(/^error: --policy-file .*nope\.json: no such file \(invalid_argument\)\n$/);
    expect((await t.svcJson<Agent[]>(['agent', 'ls'])).map((a) => a.handle)).toEqual(agentsBefore);
    const taken = await t.svc(['agent', 'create', 'payroll-bot']);
    expectExit(taken, 5);
    expect(taken.stdout).toBe('');
    expect(taken.stderr).toMatch(/^error: .*already has an agent named "payroll-bot".* \(agent_name_taken, request req_\w+\)\n/);
    // The service's own check, reached without the tool's local validation:
    const raw = await t.svc(['api', 'POST', '/v1/accounts/me/agents', '--data', JSON.stringify({ name: 'raw', spend_policy: { daily_limit_usdc: -1 } })]);
    expectExit(raw, 2);
    expect(raw.stderr).toMatch(/^error: .*daily_limit_usdc must not be negative.* \(invalid_policy, request req_\w+\)\n$/);
  });

  it('agent ls: TSV when piped, an array with --json', async () => {
    const r = await t.svc(['agent', 'ls']);
    expectExit(r, 0);
    const lines = r.stdout.trim().split('\n');
    // The old five columns first (scripts cut by position), then what an owner looks for.
    expect(lines[0]).toBe('handle\taccount_id\tstatus\tspend_policy_id\tpublic_key\tdaily_limit_usdc\tspent_today\tper_transaction_limit_usdc\thitl_threshold_usdc\theld\tapprovals_required');
    expect(lines.slice(1).map((l) => l.split('\t')[0])).toEqual(['@alice/payroll-bot', '@alice/odd', '@alice/night-bot']);
    const json = await t.svcJson<Agent[]>(['agent', 'ls']);
    expect(json.map((a) => a.handle)).toEqual(['@alice/payroll-bot', '@alice/odd', '@alice/night-bot']);
    // Another account sees none of them.
    const acme = await t.svc(['--json', 'agent', 'ls'], { env: { SVC_API_KEY: t.keyOf('@acme') } });
    expect(JSON.parse(acme.stdout)).toEqual([]);
  });

  it('agent policy get by name, handle or account id', async () => {
    const [agent] = await t.svcJson<Agent[]>(['agent', 'ls']);
    const byName = await t.svcJson<Record<string, unknown>>(['agent', 'policy', 'get', 'payroll-bot']);
    const byHandle = await t.svcJson<Record<string, unknown>>(['agent', 'policy', 'get', '@alice/payroll-bot']);
    const byId = await t.svcJson<Record<string, unknown>>(['agent', 'policy', 'get', agent!.account_id]);
    for (const p of [byName, byHandle, byId]) {
      expect(p).toMatchObject({
        policy_id: agent!.spend_policy_id,
        daily_limit_usdc: 500,
        per_transaction_limit_usdc: 100,
        hitl_threshold_usdc: 50,
        allowed_recipients: ['@acme', '*.vendors.example'],
        assets: ['USDG'],
        active_hours: '00:00-23:59',
      });
      expect(p.updated_at).toMatch(ISO_RE);
    }
    const tsv = await t.svc(['agent', 'policy', 'get', 'payroll-bot']);
    expectExit(tsv, 0);
    expect(tsvRecord(tsv.stdout).daily_limit_usdc).toBe('500');
    const unknown = await t.svc(['agent', 'policy', 'get', 'nobody']);
    expectExit(unknown, 4);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^error: no agent "nobody" under this account \(agent_not_found\)\nhint: .*svc agent ls/);
  });

  it('agent policy set: a diff on stderr; with a test key it applies without asking (no --yes, no terminal)', async () => {
    const before = await t.svcJson<Record<string, unknown>>(['agent', 'policy', 'get', 'payroll-bot']);
    const applied = await t.svc(['agent', 'policy', 'set', 'payroll-bot', '--daily-limit', '750']);
    expectExit(applied, 0);
    expect(applied.stderr).toContain('daily_limit_usdc: 500 → 750');
    expect(applied.stderr).not.toMatch(/confirm/i);
    expect(applied.stderr).toContain('updated the spend policy of @alice/payroll-bot');
    expect(tsvRecord(applied.stdout)).toMatchObject({ daily_limit_usdc: '750', per_transaction_limit_usdc: '100', policy_id: before.policy_id });

    const cleared = await t.svc(['agent', 'policy', 'set', 'payroll-bot', '--clear', 'active_hours']);
    expectExit(cleared, 0);
    expect(cleared.stderr).toContain('active_hours: 00:00-23:59 → none');
    const after = await t.svcJson<Record<string, unknown>>(['agent', 'policy', 'get', 'payroll-bot']);
    expect(after).toMatchObject({ daily_limit_usdc: 750, hitl_threshold_usdc: 50 });
    // Cleared: the field is gone (no restriction), not null.
    expect(Object.keys(after)).not.toContain('active_hours');

    // --yes changes nothing with a test key.
    const same = await t.svc(['agent', 'policy', 'set', 'payroll-bot', '--daily-limit', '750', '--yes']);
    expectExit(same, 0);
    expect(same.stderr).toContain('already says that');

    const warn = await t.svc(['agent', 'policy', 'set', 'payroll-bot', '--hitl-threshold', '100']);
    expectExit(warn, 0);
    expect(warn.stderr).toMatch(/warning: the approval threshold \(100\.00\) is at or above the per-transaction limit/);
    expectExit(await t.svc(['agent', 'policy', 'set', 'payroll-bot', '--hitl-threshold', '50']), 0);
  });

  describe('with a live key (a fake service: the sandbox refuses live keys)', () => {
    const agent = { account_id: 'acct_bot1', handle: '@me/bot', public_key: `0x${'a'.repeat(40)}`, status: 'active', spend_policy_id: 'pol_1' };
    const policy = { policy_id: 'pol_1', daily_limit_usdc: 500, updated_at: '2024-01-01T00:00:00Z' };
    const liveService = () => startScriptedServer((req) => {
      if (req.method === 'GET' && req.url === '/v1/accounts/me/agents') return { status: 200, body: { agents: [agent] } };
      if (req.url === '/v1/agents/acct_bot1/spend-policy') {
        return { status: 200, body: req.method === 'PATCH' ? { ...policy, ...JSON.parse(req.body) } : policy };
      }
      return { status: 404, body: { error: { code: 'not_found', message: 'no' } } };
    }, { tls: true }); // a live key goes over https only
    const liveEnv = (url: string) => ({ SVC_CONFIG_DIR: dir, SVC_API_KEY: FAKE_LIVE_KEY, SVC_BASE_URL: url });

    it('agent policy set without a terminal: the diff, then exit 2 (confirmation_required), nothing sent; --yes sends it', async () => {
      const server = await liveService();
      try {
        const refused = await svcIn(['agent', 'policy', 'set', 'bot', '--daily-limit', '750'], liveEnv(server.url));
        expectExit(refused, 2);
        expect(refused.stdout).toBe('');
        expect(refused.stderr).toContain('daily_limit_usdc: 500 → 750');
        expect(refused.stderr).toMatch(/^error: Apply this change to @me\/bot on a LIVE account: confirmation required \(confirmation_required\)\nhint: .*--yes/m);
        expect(refused.stderr).not.toContain(FAKE_LIVE_KEY);
        expect(server.requests.filter((q) => q.method !== 'GET')).toEqual([]);

        // With --yes it is sent: the refusal came from the confirmation alone.
        const applied = await svcIn(['--yes', 'agent', 'policy', 'set', 'bot', '--daily-limit', '750'], liveEnv(server.url));
        expectExit(applied, 0);
        expect(server.requests.filter((q) => q.method !== 'GET').map((q) => [q.method, q.url, JSON.parse(q.body)])).toEqual([
          ['PATCH', '/v1/agents/acct_bot1/spend-policy', { daily_limit_usdc: 750 }],
        ]);
      } finally {
        await server.close();
      }
    });

    it('agent policy set --json without a terminal: nothing on stdout, exactly the error object on stderr, nothing sent', async () => {
      const server = await liveService();
      try {
        const json = await svcIn(['--json', 'agent', 'policy', 'set', 'bot', '--daily-limit', '750'], liveEnv(server.url));
        expectExit(json, 2);
        expect(json.stdout).toBe('');
        expect(server.requests.filter((q) => q.method !== 'GET')).toEqual([]);
        // docs/exit-codes.md: with --json, stderr holds exactly one JSON object and nothing else.
        expect(json.stderr.trim().split('\n')).toHaveLength(1);
        expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'confirmation_required' } });
      } finally {
        await server.close();
      }
    });
  });

  it('`policy get --json` output works as a --policy-file for policy set (read-only fields are dropped)', async () => {
    const file = join(dir, 'from-get.json');
    const current = await t.svcJson<Record<string, unknown>>(['agent', 'policy', 'get', 'payroll-bot']);
    writeFileSync(file, JSON.stringify({ ...current, daily_limit_usdc: 800 }));
    const r = await t.svc(['agent', 'policy', 'set', 'payroll-bot', '--policy-file', file, '--yes']);
    expectExit(r, 0);
    expect(r.stderr).toContain('daily_limit_usdc: 750 → 800');
    expect(r.stderr.match(/→/g)).toHaveLength(1); // only that field changed
  });

  it('agent policy check: ALLOW, HOLD and DENY with the rule lines, all exit 0, nothing sent', async () => {
    const allow = await t.svc(['agent', 'policy', 'check', 'payroll-bot', '--to', '@acme', '--amount', '50']);
    expectExit(allow, 0);
    expect(allow.stdout.split('\n')[0]).toBe('ALLOW  allowed: signed and sent at once');
    expect(allow.stdout).toMatch(/✓ hitl_threshold\s+50\.00 ≤ 50\.00/);
    expect(allow.stdout).toMatch(/✓ recipient\s+@acme matches @acme/);
    expect(allow.stderr).toMatch(/nothing was sent/);

    const hold = await t.svc(['agent', 'policy', 'check', 'payroll-bot', '--to', '@pay.vendors.example', '--amount', '75']);
    expectExit(hold, 0);
    expect(hold.stdout.split('\n')[0]).toMatch(/^HOLD  amount is above the approval threshold of 50\.00/);
    expect(hold.stdout).toMatch(/⏸ hitl_threshold\s+75\.00 > 50\.00: needs human approval/);

    const deny = await t.svc(['agent', 'policy', 'check', 'payroll-bot', '--to', '@bob', '--amount', '5']);
    expectExit(deny, 0);
    expect(deny.stdout.split('\n')[0]).toBe("DENY  recipient @bob is not in the agent's allowed recipients");
    expect(deny.stdout).toMatch(/✗ recipient\s+@bob matches none of \[@acme, \*\.vendors\.example\]/);
    expect(deny.stdout).toMatch(/- daily_limit\s+not reached/);

    const json = await t.svcJson<{ decision: string; reason: string | null }>(['agent', 'policy', 'check', 'payroll-bot', '--to', '@acme', '--amount', '100.01']);
    expect(json).toMatchObject({ decision: 'deny', reason: 'per_transaction_limit' });

    const night = await t.svcJson<{ decision: string; reason: string | null }>(['agent', 'policy', 'check', 'night-bot', '--to', '@acme', '--amount', '1', '--asset', 'USDC', '--at', '2026-03-02T12:00:00Z']);
    expect(night).toMatchObject({ decision: 'deny', reason: 'outside_active_hours' });
    const nightOk = await t.svcJson<{ decision: string }>(['agent', 'policy', 'check', 'night-bot', '--to', '@acme', '--amount', '1', '--asset', 'USDC', '--at', '2026-03-02T23:30:00Z']);
    expect(nightOk.decision).toBe('allow');
    expect(t.sandbox.now()).toBeInstanceOf(Date);
  });
});

describe('an agent spending with its own key, and the approval queue', () => {
  let t: TestSandbox;
  let agentId = '';
  beforeAll(async () => {
    t = await startTestSandbox();
    await toMorning(t);
    const created = await t.svcJson<Agent>(['agent', 'create', 'bot', '--per-tx-limit', '100', '--hitl-threshold', '50', '--allow', '@acme', '--allow', '@bob']);
    agentId = created.account_id;
    await agentProfile(t, '@alice/bot', 'bot', '1000');
  });
  afterAll(async () => {
    await t?.close();
  });

  const send = (args: string[]) => t.svc(['--profile', 'bot', 'transfer', 'send', ...args]);
  async function hold(amount = '75', memo?: string): Promise<string> {
    const r = await send(['@acme', amount, ...(memo ? ['--memo', memo] : [])]);
    expectExit(r, 8);
    return TXN_RE.exec(r.stdout)![0];
  }

  it('allowed: sent at once (exit 0) from the agent', async () => {
    const r = await send(['@acme', '20']);
    expectExit(r, 0);
    expect(tsvRecord(r.stdout)).toMatchObject({ status: 'pending', from: '@alice/bot', to: '@acme' });
  });

  it('held above the threshold: exit 8, prints the transaction id and its expiry, nothing sent', async () => {
    const r = await send(['@acme', '75']);
    expectExit(r, 8);
    const rec = tsvRecord(r.stdout);
    expect(rec.transaction_id).toMatch(TXN_RE);
    expect(rec.status).toBe('pending_approval');
    expect(rec.expires_at).toMatch(ISO_RE);
    expect(Date.parse(rec.expires_at) - t.sandbox.now().getTime()).toBeGreaterThan(14 * 60_000);
    expect(r.stderr).toContain(`svc pending approve ${rec.transaction_id}`);
    expect(r.stderr).toMatch(/not sent yet/);
    const json = await t.svc(['--profile', 'bot', '--json', 'transfer', 'send', '@acme', '60']);
    expectExit(json, 8);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'pending_approval', agent: '@alice/bot', to: '@acme' });
  });

  it('denied: exit 6 with the reason on stderr', async () => {
    const over = await send(['@acme', '150']);
    expectExit(over, 6);
    expect(over.stderr).toMatch(/^error: the spend policy of @alice\/bot denies this transfer: amount exceeds the per-transaction limit of 100\.00 \(policy_violation: per_transaction_limit, request req_\w+\)\n/);
    const who = await send(['0x1111111111111111111111111111111111111111', '1']);
    expectExit(who, 6);
    expect(who.stderr).toMatch(/ \(policy_violation: recipient_not_allowed, request req_\w+\)\n/);
    expect(over.stdout).toBe('');
    expect(who.stdout).toBe('');
    // --json: the reason is a field of the error object on stderr.
    // A canary amount no random request id can hold ("150" alone once matched the hex of one).
    const json = await t.svc(['--profile', 'bot', '--json', 'transfer', 'send', '@acme', '150.4321']);
    expectExit(json, 6);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'policy_violation', reason: 'per_transaction_limit', status: 403, request_id: expect.stringMatching(/^req_/) } });
    expect(json.stderr).not.toContain('150.4321');
    expect(json.stderr).not.toContain('1504321'); // nor in minor units
  });

  it('a policy change applies to the next attempt at once', async () => {
    expectExit(await send(['@acme', '150']), 6);
    expectExit(await t.svc(['agent', 'policy', 'set', 'bot', '--per-tx-limit', '200', '--hitl-threshold', '180', '--yes']), 0);
    expectExit(await send(['@acme', '150']), 0);
    expectExit(await t.svc(['agent', 'policy', 'set', 'bot', '--per-tx-limit', '100', '--hitl-threshold', '50', '--yes']), 0);
    expectExit(await send(['@acme', '150']), 6);
  });

  it('pending ls shows the queue (amount and memo decrypted locally); --json is an array', async () => {
    const id = await hold('75.251938', 'march invoice');
    const r = await t.svc(['pending', 'ls']);
    expectExit(r, 0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('transaction_id\tagent\tto\tamount\tmemo\trequested_at\texpires_at\ttime_left');
    const row = lines.find((l) => l.startsWith(id))!.split('\t');
    expect(row.slice(0, 3)).toEqual([id, '@alice/bot', '@acme']);
    if (hasDecryptionKey(t)) {
      expect(row[3]).toBe('75.251938 USDG');
      expect(row[4]).toBe('march invoice');
    } else {
      expect(row[3]).toBe('encrypted');
    }
    expect(row[7]).toMatch(/^1[45]m(\d{1,2}s)?$/); // the countdown of docs/ux.md: 14m52s, 15m
    const json = await t.svcJson<Array<Pending & Record<string, unknown>>>(['pending', 'ls']);
    expect(json.map((p) => p.transaction_id)).toContain(id);
    expect(JSON.stringify(json)).not.toMatch(/75\.251938|75251938|march/);
    for (const p of json) {
      expect(Object.keys(p)).not.toContain('amount');
      expect(Object.keys(p)).not.toContain('time_left'); // the API objects, as they are
    }
    if (hasDecryptionKey(t)) {
      const decrypted = await t.svcJson<Array<Pending & Record<string, unknown>>>(['pending', 'ls', '--decrypt']);
      const mine = decrypted.find((p) => p.transaction_id === id)!;
      expect(mine).toMatchObject({ ...json.find((p) => p.transaction_id === id), amount: '75.251938', memo: 'march invoice' });
    }
  });

  it('pending approve (exit 0, prints the transfer id) and reject (exit 0); deciding again is exit 5', async () => {
    const a = await hold();
    const approved = await t.svc(['pending', 'approve', a]);
    expectExit(approved, 0);
    // The receipt restates what was approved (amount decrypted locally) and the rule that held it.
    expect(approved.stderr).toMatch(new RegExp(`approved ${a}: (75\\.00 USDG|an encrypted amount) from @alice/bot to @acme, submitted as transfer tr_\\w+\n  held {9}above the approval threshold \\(hitl_threshold_usdc 50\\)\n`));
    expect(tsvRecord(approved.stdout)).toMatchObject({ transaction_id: a, status: 'approved' });
    expect(tsvRecord(approved.stdout).transfer_id).toMatch(/^tr_/);
    const again = await t.svc(['pending', 'approve', a]);
    expectExit(again, 5);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^error: .*already approved.* \(transaction_already_decided, request req_\w+\)\n/);

    const r = await hold();
    const rejected = await t.svc(['--json', 'pending', 'reject', r]);
    expectExit(rejected, 0);
    const rejectedDoc = JSON.parse(rejected.stdout) as Record<string, unknown>;
    expect(rejectedDoc).toMatchObject({ transaction_id: r, status: 'rejected' });
    expect(Object.keys(rejectedDoc)).not.toContain('transfer_id'); // no transfer: absent, not null
    const decided = await t.svc(['pending', 'approve', r]);
    expectExit(decided, 5);
    expect(decided.stderr).toMatch(/ \(transaction_already_decided, request req_\w+\)\n/);
    const ids = (await t.svcJson<Pending[]>(['pending', 'ls'])).map((p) => p.transaction_id);
    expect(ids).not.toContain(a);
    expect(ids).not.toContain(r);
  });

  it('unknown id → exit 4; the agent\'s own key → exit 3; another account → exit 4', async () => {
    const unknown = await t.svc(['pending', 'approve', 'txn_doesnotexist']);
    expectExit(unknown, 4);
    expect(unknown.stderr).toMatch(/^error: .*no held transaction txn_doesnotexist.* \(transaction_not_found, request req_\w+\)\n/);
    expectExit(await t.svc(['pending', 'reject', 'txn_doesnotexist']), 4);
    const id = await hold();
    const own = await t.svc(['--profile', 'bot', 'pending', 'approve', id]);
    expectExit(own, 3);
    expect(own.stderr).toMatch(/^error: .*an agent's key cannot approve.* \(forbidden, request req_\w+\)\n/);
    expectExit(await t.svc(['pending', 'reject', id], { env: { SVC_API_KEY: t.keyOf('@acme') } }), 4);
    expectExit(await t.svc(['pending', 'reject', id]), 0);
  });

  it('after the approval window: approve and reject exit 5 (expired), and the queue drops it', async () => {
    const id = await hold();
    await t.sandbox.advance(16 * 60_000);
    const approve = await t.svc(['pending', 'approve', id]);
    expectExit(approve, 5);
    expect(approve.stderr).toMatch(/^error: .*approval window of txn_\w+ closed.* \(transaction_expired, request req_\w+\)\n/);
    expectExit(await t.svc(['pending', 'reject', id]), 5);
    expect((await t.svcJson<Pending[]>(['pending', 'ls'])).map((p) => p.transaction_id)).not.toContain(id);
  });

  it('approve and reject fired concurrently over HTTP: exactly one 200', async () => {
    for (let i = 0; i < 3; i++) {
      const id = await hold();
      const results = await Promise.all([
        aliceCall(t, 'POST', `/v1/agents/transactions/${id}/approve`, {}),
        aliceCall(t, 'POST', `/v1/agents/transactions/${id}/reject`, {}),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(results.find((r) => r.status === 409)!.body.error.code).toBe('transaction_already_decided');
    }
  });

  it('pending review without a terminal: exit 2 pointing at ls / approve / reject', async () => {
    const r = await t.svc(['pending', 'review']);
    expectExit(r, 2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: `svc pending review` needs an interactive terminal \(invalid_argument\)\n/);
    expect(r.stderr).toMatch(/svc pending ls.*svc pending approve <id>.*svc pending reject <id>/);
  });

  it('the agent can read its own policy but not change it (403 not_agent_owner)', async () => {
    const key = await botKey(t);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const read = await fetch(`${t.url}/v1/agents/${agentId}/spend-policy`, { headers });
    expect(read.status).toBe(200);
    await read.arrayBuffer();
    const res = await fetch(`${t.url}/v1/agents/${agentId}/spend-policy`, { method: 'PATCH', headers, body: '{"per_transaction_limit_usdc":1000}' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_agent_owner');
  });
});

/** The bot profile's API key, read from the private config dir. */
async function botKey(t: TestSandbox): Promise<string> {
  const { ProfileStore } = await import('../../../src/config/profiles.js');
  return new ProfileStore(t.configDir).get('bot')!.apiKey;
}

describe('the daily limit through the tool', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
    await toMorning(t);
    expectExit(await t.svc(['agent', 'create', 'daily', '--daily-limit', '100', '--hitl-threshold', '25']), 0);
    await agentProfile(t, '@alice/daily', 'daily', '1000');
  });
  afterAll(async () => {
    await t?.close();
  });
  const send = (to: string, amount: string) => t.svc(['--profile', 'daily', 'transfer', 'send', to, amount]);

  it('counts settled and pending transfers, not failed, held or rejected ones; policy check sees the same spend', async () => {
    expectExit(await send('0x000000000000000000000000000000000000dEaD', '20'), 0); // will fail: does not count
    expectExit(await send('@acme', '20'), 0);
    await t.sandbox.advance(BLOCK); // one failed, one confirmed (settled)
    expectExit(await send('@acme', '20'), 0); // pending: 40 spent today
    const held = await send('@acme', '30');
    expectExit(held, 8);
    const rejected = await send('@acme', '30');
    expectExit(rejected, 8);
    expectExit(await t.svc(['pending', 'reject', TXN_RE.exec(rejected.stdout)![0]]), 0);

    if (hasDecryptionKey(t)) {
      const check = await t.svc(['agent', 'policy', 'check', 'daily', '--to', '@acme', '--amount', '25']);
      expectExit(check, 0);
      expect(check.stdout).toContain('today: 40.00 spent (decrypted locally from the service), 60.00 left');
      expect(check.stdout.split('\n')[0]).toMatch(/^ALLOW/);
    }
    expectExit(await send('@acme', '25'), 0); // 65
    expectExit(await send('@acme', '25'), 0); // 90: the held and rejected 30s never counted
    const over = await send('@acme', '10.01');
    expectExit(over, 6);
    expect(over.stderr).toMatch(/daily limit of 100\.00 \(10\.00 left today\) \(policy_violation: daily_limit, request req_\w+\)\n/);
    expectExit(await send('@acme', '10'), 0); // exactly at the limit

    // The held one, approved, counts through its transfer.
    expectExit(await t.svc(['pending', 'approve', TXN_RE.exec(held.stdout)![0]]), 0);
    if (hasDecryptionKey(t)) {
      const json = await t.svcJson<{ spent_today: string; decision: string; reason: string }>(['agent', 'policy', 'check', 'daily', '--to', '@acme', '--amount', '1']);
      expect(json).toMatchObject({ spent_today: '130.00', decision: 'deny', reason: 'daily_limit' });
    }
    // A new UTC day starts from zero.
    await t.sandbox.advance(24 * HOUR);
    expectExit(await send('@acme', '20'), 0);
  });
});

describe('svc sandbox start --approval-window', () => {
  let configDir = '';
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
    if (configDir) rmSync(configDir, { recursive: true, force: true });
  });

  it('sets how long held transactions wait; a bad value is exit 2', async () => {
    configDir = mkdtempSync(join(tmpdir(), 'svc-e2e-window-'));
    const env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
    const bad = await svcIn(['sandbox', 'start', '--port', '0', '--ephemeral', '--approval-window', 'soon'], env);
    expectExit(bad, 2);
    expect(bad.stderr).toMatch(/^error: .*--approval-window.* \(invalid_argument\)\n/);

    const started = await spawnSandbox(['--json', 'sandbox', 'start', '--port', '0', '--ephemeral', '--approval-window', '2m'], env);
    children.push(started.child);
    expect(JSON.parse(started.stdout())).toMatchObject({ approval_window_ms: 120_000 });
    const svc = (args: string[], o: { input?: string } = {}) => svcIn(args, env, o);
    expectExit(await svc(['agent', 'create', 'w', '--hitl-threshold', '1']), 0);
    const key = (await svc(['sandbox', 'key', 'create', '--account', '@alice/w'])).stdout.trim();
    expectExit(await svc(['sandbox', 'fund', '@alice/w', '10']), 0);
    const held = await svcIn(['--json', 'transfer', 'send', '@acme', '2'], { ...env, SVC_API_KEY: key });
    expectExit(held, 8);
    const doc = JSON.parse(held.stdout);
    expect(Date.parse(doc.expires_at) - Date.parse(doc.requested_at)).toBe(120_000);
    await started.stop();
  });
});
