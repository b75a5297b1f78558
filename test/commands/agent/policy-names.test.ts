// Issue 25, "Policies as people read them": one name per limit across flags, tables and docs;
// `agent create` shows the policy it made; `policy get` shows every field with its unit, unset
// ones as "none"/"any"; `agent ls` shows limits, today's spend and held count, not cut ids.
// End to end against an in-process sandbox; a terminal is pretended where people read tables.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type RunResult, type TestSandbox } from '../../helpers/e2e.js';
import { runCli } from '../../helpers/cli.js';
import { startScriptedServer } from '../../helpers/scripted-server.js';

const FAKE_TEST_KEY = 'svc_test_Ag3ntLsQuietKeyAbCdEf123456';

const HOUR = 3_600_000;

function expectExit(r: RunResult, code: number): void {
  expect(r.code, `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(code);
}

/** The record's `label  value` line on a terminal (labels padded to one width). */
function line(stdout: string, label: string): string | undefined {
  return stdout.split('\n').find((l) => l.startsWith(label))?.slice(label.length).trim();
}

describe('policies as people read them', () => {
  let t: TestSandbox;
  const tty = (args: string[]) => runCli(args, { env: t.env, tty: { stdout: true }, columns: 200 });
  beforeAll(async () => {
    t = await startTestSandbox();
    // 06:00 UTC of the next day: nothing crosses midnight by accident.
    const now = t.sandbox.now().getTime();
    await t.sandbox.advance(Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000 + 6 * HOUR - now);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the limits have one name each: --per-transaction-limit and --approval-threshold set them; the old flags still work, hidden', async () => {
    const r = await t.svc(['agent', 'create', 'named', '--per-transaction-limit', '100', '--approval-threshold', '50']);
    expectExit(r, 0);
    expect(await t.svcJson(['agent', 'policy', 'get', 'named'])).toMatchObject({ per_transaction_limit_usdc: 100, hitl_threshold_usdc: 50 });
    // Scripts written with the old names keep working.
    expectExit(await t.svc(['agent', 'policy', 'set', 'named', '--per-tx-limit', '120', '--hitl-threshold', '60']), 0);
    expect(await t.svcJson(['agent', 'policy', 'get', 'named'])).toMatchObject({ per_transaction_limit_usdc: 120, hitl_threshold_usdc: 60 });
    // Both names with different values: one line naming both, nothing sent.
    const both = await t.svc(['agent', 'policy', 'set', 'named', '--per-transaction-limit', '1', '--per-tx-limit', '2']);
    expectExit(both, 2);
    expect(both.stderr).toBe('error: --per-tx-limit is the old name of --per-transaction-limit: give one of them (usage)\n');
    // --clear takes the new names (and the old ones).
    expectExit(await t.svc(['agent', 'policy', 'set', 'named', '--clear', 'per-transaction-limit', '--clear', 'hitl-threshold']), 0);
    const cleared = await t.svcJson<Record<string, unknown>>(['agent', 'policy', 'get', 'named']);
    expect(Object.keys(cleared)).not.toContain('per_transaction_limit_usdc');
    expect(Object.keys(cleared)).not.toContain('hitl_threshold_usdc');
    // Help names the new flags only.
    const help = await t.svc(['agent', 'create', '--help']);
    expect(help.stdout).toContain('--per-transaction-limit <usd>');
    expect(help.stdout).toContain('--approval-threshold <usd>');
    expect(help.stdout).not.toContain('--per-tx-limit');
    expect(help.stdout).not.toContain('--hitl-threshold');
    const setHelp = await t.svc(['agent', 'policy', 'set', '--help']);
    expect(setHelp.stdout.replace(/\s+/g, ' ')).toContain('named by its flag: daily-limit, per-transaction-limit, approval-threshold, allow, asset, active-hours');
  });

  it('policy get: every field on a terminal, named as its flag, with units; unset ones as "none" / "any"', async () => {
    expectExit(await t.svc(['agent', 'create', 'daily-only', '--daily-limit', '500']), 0);
    const r = await tty(['agent', 'policy', 'get', 'daily-only']);
    expectExit(r, 0);
    expect(line(r.stdout, 'Daily limit (--daily-limit)')).toBe('500.00 USD per UTC day');
    expect(line(r.stdout, 'Per-transaction limit (--per-transaction-limit)')).toBe('none (no per-transaction limit)');
    expect(line(r.stdout, 'Approval threshold (--approval-threshold)')).toBe('none (nothing is held)');
    expect(line(r.stdout, 'Allowed recipients (--allow)')).toBe('any recipient');
    expect(line(r.stdout, 'Assets (--asset)')).toBe('any asset');
    expect(line(r.stdout, 'Active hours (--active-hours)')).toBe('any time');
    // Scripts see the service's fields and values, as before: an unset field stays absent.
    const tsv = await t.svc(['agent', 'policy', 'get', 'daily-only']);
    expect(tsv.stdout).toContain('daily_limit_usdc\t500\n');
    expect(tsv.stdout).not.toContain('per_transaction_limit_usdc');
  });

  it('agent create shows the policy it created (terminal, TSV and --json, the old fields kept)', async () => {
    const r = await tty(['agent', 'create', 'shown', '--daily-limit', '250', '--per-transaction-limit', '25.5', '--allow', '@acme', '--active-hours', '08:00-18:00']);
    expectExit(r, 0);
    expect(r.stdout).toContain('Spend policy\n');
    expect(line(r.stdout, 'Daily limit (--daily-limit)')).toBe('250.00 USD per UTC day');
    expect(line(r.stdout, 'Per-transaction limit (--per-transaction-limit)')).toBe('25.50 USD per transfer');
    expect(line(r.stdout, 'Allowed recipients (--allow)')).toBe('@acme');
    expect(line(r.stdout, 'Active hours (--active-hours)')).toBe('08:00-18:00 UTC');
    expect(line(r.stdout, 'Assets (--asset)')).toBe('any asset');
    expect(line(r.stdout, 'Policy ID')).toMatch(/^pol_/);

    const tsv = await t.svc(['agent', 'create', 'shown-tsv', '--daily-limit', '250']);
    expectExit(tsv, 0);
    expect(tsv.stdout).toMatch(/^spend_policy_id\tpol_\w+$/m);
    expect(tsv.stdout).toContain('daily_limit_usdc\t250\n');

    const json = await t.svcJson<Record<string, any>>(['agent', 'create', 'shown-json', '--daily-limit', '250']);
    expect(Object.keys(json)).toEqual(expect.arrayContaining(['account_id', 'handle', 'public_key', 'status', 'spend_policy_id']));
    expect(json.spend_policy).toMatchObject({ policy_id: json.spend_policy_id, daily_limit_usdc: 250 });
  });

  it("agent ls: limits, today's spend and the held count on a terminal, not cut ids; --json unchanged", async () => {
    const make = await t.svc(['agent', 'create', 'spender', '--daily-limit', '500', '--per-transaction-limit', '100', '--approval-threshold', '50', '--save-profile', 'spender']);
    expectExit(make, 0);
    expectExit(await t.svc(['sandbox', 'fund', '@alice/spender', '1000']), 0);
    expectExit(await t.svc(['--profile', 'spender', 'transfer', 'send', '@bob', '30']), 0);
    expectExit(await t.svc(['--profile', 'spender', 'transfer', 'send', '@bob', '70']), 8); // held above 50

    const r = await tty(['agent', 'ls']);
    expectExit(r, 0);
    const [header, ...rows] = r.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['HANDLE', 'STATUS', 'DAILY LIMIT', 'SPENT TODAY', 'PER-TRANSACTION LIMIT', 'APPROVAL THRESHOLD', 'HELD', 'APPROVALS']);
    const row = rows.find((l) => l.startsWith('@alice/spender'))!.split(/\s{2,}/);
    expect(row).toEqual(['@alice/spender', 'active', '500.00 USD', '30.00', '100.00 USD', '50.00 USD', '1', '1']);
    const other = rows.find((l) => l.startsWith('@alice/named'))!.split(/\s{2,}/);
    expect(other).toEqual(['@alice/named', 'active', 'none', expect.any(String), 'none', 'none', '0', '1']);
    expect(r.stdout).not.toMatch(/acct_|pol_|0x[0-9a-fA-F]/);

    const json = await t.svcJson<Array<Record<string, unknown>>>(['agent', 'ls']);
    const spender = json.find((a) => a.handle === '@alice/spender')!;
    expect(Object.keys(spender).sort()).toEqual(['account_id', 'created_at', 'handle', 'public_key', 'spend_policy_id', 'status', 'type']);
  });
});

describe('agent ls against a service that will not give a policy', () => {
  it('shows "?" for that agent\'s limits, never "none", and says why on stderr', async () => {
    const agent = { account_id: 'acc_1', handle: '@alice/quiet', public_key: `0x${'a'.repeat(40)}`, status: 'active', spend_policy_id: 'pol_1' };
    const server = await startScriptedServer((req) => {
      if (req.url === '/v1/accounts/me/agents') return { status: 200, body: { agents: [agent] } };
      if (req.url === '/v1/agents/transactions/pending') return { status: 200, body: { pending: [] } };
      return { status: 403, body: { error: { code: 'not_agent_owner', message: 'not yours', request_id: 'req_1' } } };
    });
    try {
      const r = await runCli(['agent', 'ls'], { env: { SVC_API_KEY: FAKE_TEST_KEY, SVC_BASE_URL: server.url, NO_COLOR: '1' }, tty: { stdout: true }, columns: 200 });
      expectExit(r, 0);
      const row = r.stdout.trim().split('\n')[1]!.split(/\s{2,}/);
      expect(row).toEqual(['@alice/quiet', 'active', '?', '?', '?', '?', '0', '?']);
      expect(r.stderr).toContain("?: the service did not let this key read that agent's policy");
    } finally {
      await server.close();
    }
  });
});
