// `svc transfer send --dry-run` end to end against the sandbox: everything a send checks, nothing
// sent. A normal key: validation and the balance. An agent's key: its spend policy evaluated
// locally with the service's own engine (allow 0 / hold 8 / deny 6, as the real send would exit),
// today's spend decrypted with the agent's own decryption key. The sandbox clock is moved by the
// tests; nothing waits in real time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { ERROR, FAKE_LIVE_KEY, startScriptedServer, UNKNOWN_TEST_KEY } from '../../helpers/scripted-server.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HOUR = 3_600_000;

function expectExit(r: { code: number | null; stdout: string; stderr: string }, code: number): void {
  expect(r.code, `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(code);
}

interface DryRun {
  dry_run: true;
  decision: 'allow' | 'hold' | 'deny';
  reason?: string;
  message: string;
  request: { to: string; amount: string; asset: string; confidential: boolean; memo?: string };
  idempotency_key?: string;
  from: string;
  agent?: string;
  checks: Array<{ rule: string; outcome: string; detail: string }>;
  at: string;
  spent_today?: string;
  spent_today_unknown?: true;
  daily_remaining?: string;
  daily_resets_at?: string;
}

describe('transfer send --dry-run', () => {
  let t: TestSandbox;
  const ls = async (profile: string) => (await t.svc(['--json', '--profile', profile, 'transfer', 'ls', '--limit', '100'])).stdout;

  beforeAll(async () => {
    t = await startTestSandbox();
    // 06:00 UTC of the next day: nothing crosses midnight by accident.
    const now = t.sandbox.now().getTime();
    await t.sandbox.advance(Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000 + 6 * HOUR - now);
    const created = await t.svcJson<{ decryption_key?: string }>([
      'agent', 'create', 'bot', '--daily-limit', '200', '--per-tx-limit', '100', '--hitl-threshold', '50', '--allow', '@acme', '--allow', '@bob',
    ]);
    const key = (await t.svc(['sandbox', 'key', 'create', '--account', '@alice/bot', '--name', 'bot'])).stdout.trim();
    // The agent's profile, with the agent's own decryption key (it opens today's spend).
    expectExit(await t.svc(['--base-url', t.url, 'profile', 'add', 'bot', '--key-stdin', '--decryption-key-stdin'], { input: `${key}\n${created.decryption_key}\n` }), 0);
    // The same key without a decryption key.
    expectExit(await t.svc(['--base-url', t.url, 'profile', 'add', 'bot-nokey', '--key-stdin'], { input: `${key}\n` }), 0);
    expectExit(await t.svc(['sandbox', 'fund', '@alice/bot', '1000']), 0);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a normal key: validated, says what would be sent, checks the balance, sends nothing (exit 0)', async () => {
    const before = await ls('sandbox');
    const r = await t.svc(['transfer', 'send', '@Acme', '25.5', '--memo', 'rent', '--idempotency-key', 'order-1', '--dry-run']);
    expectExit(r, 0);
    expect(r.stdout).toBe([
      '[TEST] dry run: would send 25.50 USDG to @acme from @alice, confidential, with a memo, idempotency key order-1',
      'ALLOW  would be sent: @alice is not an agent, so no spend policy applies',
      '  ✓ balance                enough USDG (decrypted locally)',
      '',
    ].join('\n'));
    expect(r.stderr).toMatch(/^dry run at \d{4}-\d\d-\d\dT[\d:.]+Z; nothing was sent\n$/);
    const json = await t.svcJson<DryRun>(['transfer', 'send', '@acme', '25.5', '--memo', 'rent', '--idempotency-key', 'order-1', '--dry-run']);
    expect(json).toEqual({
      dry_run: true,
      decision: 'allow',
      message: 'would be sent: @alice is not an agent, so no spend policy applies',
      request: { to: '@acme', amount: '25.5', asset: 'USDG', confidential: true, memo: 'rent' },
      idempotency_key: 'order-1',
      from: '@alice',
      checks: [{ rule: 'balance', outcome: 'passed', detail: 'enough USDG (decrypted locally)' }],
      at: expect.stringMatching(/Z$/),
    });
    expect(await ls('sandbox')).toBe(before);
    // The key was never used: a real send with it now is the first.
    expectExit(await t.svc(['transfer', 'send', '@acme', '1', '--idempotency-key', 'order-1']), 0);
  });

  it('a normal key short of funds: deny, insufficient_balance, exit 6 as the real send', async () => {
    const json = await runCli(['--json', 'transfer', 'send', '@acme', '250.01', '--asset', 'usdc', '--dry-run'], { env: t.env });
    expectExit(json, 6);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toMatchObject({ decision: 'deny', reason: 'insufficient_balance', checks: [{ rule: 'balance', outcome: 'failed' }] });
    expectExit(await t.svc(['transfer', 'send', '@acme', '250.01', '--asset', 'USDC']), 6);
  });

  it('refuses to wait for what it does not send, and checks input as a send does', async () => {
    const r = await t.svc(['transfer', 'send', '@acme', '1', '--dry-run', '--wait']);
    expectExit(r, 2);
    expect(r.stderr).toMatch(/^error: --wait cannot be combined with --dry-run.*\(usage\)$/m);
    expectExit(await t.svc(['transfer', 'send', '@acme', '0', '--dry-run']), 2);
    expectExit(await t.svc(['transfer', 'send', '@acme', '1', '--asset', 'EUR', '--dry-run']), 2);
    expectExit(await t.svc(['transfer', 'send', '@acme', '1', '--memo', 'x'.repeat(257), '--dry-run']), 2);
    expectExit(await t.svc(['transfer', 'send', '@acme', '1', '--idempotency-key', 'has space', '--dry-run']), 2);
  });

  describe("an agent's key: the policy evaluated locally", () => {
    const dry = (args: string[], profile = 'bot') => t.svc(['--profile', profile, 'transfer', 'send', ...args, '--dry-run']);

    it('allow: the rule trace, today\'s spend decrypted with the agent\'s key, exit 0, nothing sent', async () => {
      const before = await ls('bot');
      const r = await dry(['@acme', '20']);
      expectExit(r, 0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe('[TEST] dry run: would send 20.00 USDG to @acme from @alice/bot, confidential');
      expect(lines[1]).toBe('ALLOW  allowed: signed and sent at once');
      expect(lines.slice(2, 9).map((l) => l.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual([
        '· asset', '✓ recipient', '· active_hours', '✓ per_transaction_limit', '✓ daily_limit', '✓ hitl_threshold', '✓ balance',
      ]);
      expect(lines[9]).toMatch(/^today: 0\.00 spent \(decrypted locally\), 200\.00 left, resets \d{4}-\d\d-\d\dT00:00:00\.000Z$/);
      expect(await ls('bot')).toBe(before);
    });

    it('hold above the threshold: exit 8 (as the real send), no pending item is made', async () => {
      const r = await dry(['@acme', '75']);
      expectExit(r, 8);
      expect(r.stdout.split('\n')[1]).toMatch(/^HOLD  amount is above the approval threshold of 50\.00/);
      expect(r.stdout).toMatch(/⏸ hitl_threshold\s+75\.00 > 50\.00: needs human approval/);
      expect(r.stdout).toMatch(/- balance\s+a held transfer reserves nothing until it is approved/);
      expect(await t.svcJson(['pending', 'ls'])).toEqual([]);
      const json = await runCli(['--json', '--profile', 'bot', 'transfer', 'send', '@acme', '75', '--dry-run'], { env: t.env });
      expectExit(json, 8);
      expect(JSON.parse(json.stdout)).toMatchObject({ decision: 'hold', agent: '@alice/bot', from: '@alice/bot' });
    });

    it('deny: per-transaction limit and recipient not allowed, exit 6 with the reason', async () => {
      const over = await dry(['@acme', '150']);
      expectExit(over, 6);
      expect(over.stdout.split('\n')[1]).toBe('DENY  amount exceeds the per-transaction limit of 100.00');
      expect(over.stdout).toMatch(/✗ per_transaction_limit\s+150\.00 > 100\.00/);
      expect(over.stdout).toMatch(/- daily_limit\s+not reached/);
      const who = await runCli(['--json', '--profile', 'bot', 'transfer', 'send', '0x1111111111111111111111111111111111111111', '1', '--dry-run'], { env: t.env });
      expectExit(who, 6);
      expect(JSON.parse(who.stdout)).toMatchObject({ decision: 'deny', reason: 'recipient_not_allowed' });
    });

    it("deny on the daily limit, counting today's real spend; agrees with the real send", async () => {
      // The dry runs above sent nothing: these four real sends are all of today's spend.
      for (let i = 0; i < 4; i++) expectExit(await t.svc(['--profile', 'bot', 'transfer', 'send', '@acme', '45']), 0);
      const json = await runCli(['--json', '--profile', 'bot', 'transfer', 'send', '@bob', '30', '--dry-run'], { env: t.env });
      expectExit(json, 6);
      const doc = JSON.parse(json.stdout) as DryRun;
      expect(doc).toMatchObject({
        dry_run: true, decision: 'deny', reason: 'daily_limit', from: '@alice/bot', agent: '@alice/bot',
        request: { to: '@bob', amount: '30', asset: 'USDG', confidential: true },
        spent_today: '180.00', daily_remaining: '20.00', daily_resets_at: expect.stringMatching(/T00:00:00\.000Z$/),
      });
      expect(doc.checks.map((c) => [c.rule, c.outcome])).toEqual([
        ['asset', 'unrestricted'], ['recipient', 'passed'], ['active_hours', 'unrestricted'], ['per_transaction_limit', 'passed'],
        ['daily_limit', 'failed'], ['hitl_threshold', 'not_checked'], ['balance', 'not_checked'],
      ]);
      expect(doc.checks[4]!.detail).toBe('180.00 spent today + 30.00 > 200.00');
      // Exactly up to the limit passes; the service agrees on both.
      expectExit(await dry(['@bob', '20']), 0);
      const real = await t.svc(['--profile', 'bot', 'transfer', 'send', '@bob', '30']);
      expectExit(real, 6);
      expect(real.stderr).toMatch(/policy_violation: daily_limit/);
      // The next UTC day starts from zero.
      const now = t.sandbox.now().getTime();
      await t.sandbox.advance(Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000 + HOUR - now);
      const tomorrow = await dry(['@bob', '30']);
      expectExit(tomorrow, 0);
      expect(tomorrow.stdout).toMatch(/^today: 0\.00 spent/m);
    });

    it("without the agent's decryption key: today's spend is unknown, said on stderr and in the JSON", async () => {
      const r = await dry(['@acme', '10'], 'bot-nokey');
      expectExit(r, 0);
      expect(r.stdout).toMatch(/^today: spend unknown here \(counted as 0: the daily limit may still deny it\)/m);
      expect(r.stderr).toMatch(/^warning: today's spend of @alice\/bot does not decrypt here/m);
      const json = await runCli(['--json', '--profile', 'bot-nokey', 'transfer', 'send', '@acme', '10', '--dry-run'], { env: t.env });
      expectExit(json, 0);
      const doc = JSON.parse(json.stdout) as DryRun;
      expect(doc.spent_today_unknown).toBe(true);
      expect(doc.spent_today).toBeUndefined();
      expect(doc.checks.at(-1)).toMatchObject({ rule: 'balance', outcome: 'not_checked' });
      expect(json.stderr).toBe('');
    });

    it('a lower-case 0x recipient is shown to people in EIP-55 form, and would be sent as typed', async () => {
      const r = await t.svc(['transfer', 'send', '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359', '1', '--dry-run']);
      expectExit(r, 0);
      // Piped or not, the same lines for a person (as `agent policy check` prints them).
      expect(r.stdout.split('\n')[0]).toContain('to 0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359 from @alice');
      const json = await t.svcJson<DryRun>(['transfer', 'send', '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359', '1', '--dry-run']);
      expect(json.request.to).toBe('0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359');
    });
  });
});

describe('transfer send --dry-run against a service that does not let an agent read its policy', () => {
  it('policy_unavailable, exit 1, with the owner\'s command as the hint; nothing but reads', async () => {
    const s = await startScriptedServer((req) => {
      if (req.url === '/v1/accounts/me') {
        return { status: 200, body: { account_id: 'acct_bot', handle: '@alice/bot', type: 'agent', public_key: `0x${'1'.repeat(40)}`, kyc_status: 'verified', created_at: '2024-01-01T00:00:00Z' } };
      }
      return { status: 403, body: ERROR('not_agent_owner', '@alice/bot does not own an agent with the id acct_bot') };
    });
    try {
      const env = { SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-dry-')), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: s.url, NO_COLOR: '1' };
      const r = await runCli(['transfer', 'send', '@acme', '5', '--dry-run'], { env });
      expectExit(r, 1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: cannot preview the spend policy of @alice\/bot: the service does not let the agent's own key read it \(not_agent_owner\), so whether it would be sent, held or denied is unknown \(policy_unavailable\)\nhint: the owner can simulate it: `svc --profile <owner-profile> agent policy check @alice\/bot --to <recipient> --amount <amount>`\n$/);
      const json = await runCli(['--json', 'transfer', 'send', '@acme', '5', '--dry-run'], { env });
      expectExit(json, 1);
      expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'policy_unavailable', agent: '@alice/bot' } });
      expect(s.requests.every((q) => q.method === 'GET')).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('a live key is not asked to confirm a dry run (nothing moves), and nothing is posted', async () => {
    const s = await startScriptedServer((req) => {
      if (req.url === '/v1/accounts/me') return { status: 200, body: { account_id: 'acct_1', handle: '@alice', type: 'personal', public_key: `0x${'1'.repeat(40)}`, kyc_status: 'verified', created_at: '2024-01-01T00:00:00Z' } };
      if (req.url === '/v1/accounts/me/balances') return { status: 200, body: { balances: [{ asset: 'USDG', nonzero: true }] } };
      return { status: 500, body: ERROR('unexpected', 'unexpected') };
    }, { tls: true }); // a live key goes over https only
    try {
      const env = { SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-dry-')), SVC_API_KEY: FAKE_LIVE_KEY, SVC_BASE_URL: s.url, NO_COLOR: '1' };
      const r = await runCli(['--json', 'transfer', 'send', '@acme', '5', '--dry-run'], { env });
      expectExit(r, 0);
      expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'allow', checks: [{ rule: 'balance', outcome: 'not_checked' }] });
      expect(s.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /v1/accounts/me', 'GET /v1/accounts/me/balances']);
    } finally {
      await s.close();
    }
  });
});
