// Two-person approval end to end (DESIGN.md "Quorum"; docs/agents.md "Two approvers"), as three
// people at three terminals: the owner's first key (config dir A, the `sandbox` profile), a
// second owner key made with `svc sandbox key create --account @alice --name ops2` (its own
// config dir B, its own profile), and the agent (profile `bot`). Every command is a real svc
// process against a spawned sandbox, which settles in real time (50 ms blocks): the test waits
// for processes and answers, never for time; the deadline is reached with `sandbox clock advance`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { runSvc, spawnSandbox, spawnSvc, type RunResult, type SpawnedSandbox } from '../../helpers/run.js';

const TXN_RE = /txn_[A-Za-z0-9]{24}/;
let sandbox: SpawnedSandbox;
let dirA: string;
let dirB: string;
/** The owner's first key (@alice's seeded key, key name `seed`). */
let owner1: Record<string, string>;
/** The owner's second key (`ops2`), in a config directory of its own. */
let owner2: Record<string, string>;
/** The agent's own profile (saved by `agent create --save-profile bot` in A). */
let agent: Record<string, string>;

function expectExit(r: RunResult, code: number): void {
  expect(r.code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(code);
}

async function ok(args: string[], env: Record<string, string>): Promise<RunResult> {
  const r = await runSvc(args, env);
  expectExit(r, 0);
  return r;
}

/** The held transaction as the owner's first key reads it. */
async function held(id: string): Promise<Record<string, any>> {
  return JSON.parse((await ok(['--json', 'pending', 'get', id], owner1)).stdout);
}

/** The agent proposes a transfer above its threshold: held, exit 8; its id. */
async function propose(amount: string, env = agent): Promise<string> {
  const r = await runSvc(['--json', 'transfer', 'send', '@acme', amount], env);
  expectExit(r, 8);
  return TXN_RE.exec(r.stdout)![0];
}

/** The agent's transfers (as the agent's key lists them). */
async function agentTransfers(env = agent): Promise<Array<Record<string, unknown>>> {
  return JSON.parse((await ok(['--json', 'transfer', 'ls'], env)).stdout);
}

beforeAll(async () => {
  dirA = mkdtempSync(join(tmpdir(), 'svc-quorum-a-'));
  dirB = mkdtempSync(join(tmpdir(), 'svc-quorum-b-'));
  owner1 = { SVC_CONFIG_DIR: dirA, NO_COLOR: '1' };
  sandbox = await spawnSandbox(['--json', 'sandbox', 'start', '--port', '0', '--block-time', '50ms', '--ephemeral'], owner1);
  const started = JSON.parse(sandbox.stdout()) as { accounts: Array<{ handle: string; decryption_key?: string }> };
  const aliceDk = started.accounts.find((a) => a.handle === '@alice')!.decryption_key!;

  await ok(['agent', 'create', 'treasury', '--approval-threshold', '50', '--approvals-required', '2', '--save-profile', 'bot'], owner1);
  agent = { ...owner1, SVC_PROFILE: 'bot' };
  await ok(['sandbox', 'fund', '@alice/treasury', '1000'], owner1);
  // The second person: a key of their own, in a profile of their own.
  const key = (await ok(['sandbox', 'key', 'create', '--account', '@alice', '--name', 'ops2'], owner1)).stdout.trim();
  expect(key).toMatch(/^svc_test_/);
  owner2 = { SVC_CONFIG_DIR: dirB, NO_COLOR: '1' };
  // The same account, so the same decryption key (amounts show for both people).
  const added = await runSvc(['--base-url', sandbox.url, 'profile', 'add', 'ops2', '--key-stdin', '--decryption-key-stdin', '--use'], owner2, { input: `${key}\n${aliceDk}\n` });
  expectExit(added, 0);
}, 90_000);

afterAll(async () => {
  await sandbox?.stop();
  for (const d of [dirA, dirB]) if (d) rmSync(d, { recursive: true, force: true });
});

describe('two approvers, one agent, each its own process', () => {
  it('the policy says 2: policy get, agent ls and the diff show it; 6 is refused before anything is sent', async () => {
    const tsv = await ok(['agent', 'policy', 'get', 'treasury'], owner1);
    expect(tsv.stdout).toMatch(/^approvals_required\t2$/m);
    expect(JSON.parse((await ok(['--json', 'agent', 'policy', 'get', 'treasury'], owner1)).stdout)).toMatchObject({ approvals_required: 2, hitl_threshold_usdc: 50 });
    // On a terminal, named as its flag names it.
    const table = await runCli(['agent', 'policy', 'get', 'treasury'], { env: owner1, tty: { stdout: true }, columns: 200 });
    expect(table.stdout).toMatch(/Approvals required \(--approvals-required\)\s+2 \(distinct owner keys must each approve a held transfer\)/);
    const ls = (await ok(['agent', 'ls'], owner1)).stdout.trim().split('\n').map((l) => l.split('\t'));
    const col = ls[0]!.indexOf('approvals_required');
    expect(col).toBeGreaterThan(0);
    expect(ls.find((r) => r[0] === '@alice/treasury')![col]).toBe('2');
    const lsTable = await runCli(['agent', 'ls'], { env: owner1, tty: { stdout: true }, columns: 200 });
    expect(lsTable.stdout.split('\n')[0]).toMatch(/APPROVALS$/);

    const tooMany = await runSvc(['agent', 'policy', 'set', 'treasury', '--approvals-required', '6', '--yes'], owner1);
    expectExit(tooMany, 2);
    expect(tooMany.stderr).toMatch(/approvals_required must be a whole number from 1 to 5 \(got 6\).*\(--approvals-required\).*\(invalid_policy\)/);
    // A policy file carries it (`policy get --json` output works as input); --clear sets it back to one.
    const file = join(dirA, 'policy.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse((await ok(['--json', 'agent', 'policy', 'get', 'treasury'], owner1)).stdout), approvals_required: 3 }));
    const fromFile = await ok(['agent', 'policy', 'set', 'treasury', '--policy-file', file, '--yes'], owner1);
    expect(fromFile.stderr).toContain('approvals_required: 2 → 3');
    const cleared = await ok(['agent', 'policy', 'set', 'treasury', '--clear', 'approvals-required', '--yes'], owner1);
    expect(cleared.stderr).toContain('approvals_required: 3 → 1');
    expect(JSON.parse((await ok(['--json', 'agent', 'policy', 'get', 'treasury'], owner1)).stdout).approvals_required).toBeUndefined();
    const back = await ok(['agent', 'policy', 'set', 'treasury', '--approvals-required', '2', '--yes'], owner1);
    expect(back.stderr).toContain('approvals_required: 1 → 2');
  }, 60_000);

  it("1 of 2 pays nothing; the same key twice counts once; the second key pays it once, and the agent's send --wait exits 0", async () => {
    const before = (await agentTransfers()).length;
    const sending = spawnSvc(['transfer', 'send', '@acme', '75', '--wait', '--timeout-wait', '5m'], agent);
    try {
      await sending.waitFor('stderr', /held for approval: txn_/, 30_000);
      const id = TXN_RE.exec(sending.stderr())![0];

      const first = await runSvc(['pending', 'approve', id], owner1);
      expectExit(first, 0);
      const partial = await held(id);
      expect(partial).toMatchObject({ status: 'pending_approval', approvals_required: 2, approvals: [{ key_name: 'seed', account: '@alice' }] });
      expect(partial.transfer_id).toBeUndefined();
      expect(await agentTransfers()).toHaveLength(before);

      const again = await runSvc(['pending', 'approve', id], owner1);
      expectExit(again, 5);
      expect(again.stderr).toMatch(/already approved.*\(already_approved/);
      expect((await held(id)).approvals).toHaveLength(1);
      expect(sending.done()).toBe(false);

      const second = await runSvc(['pending', 'approve', id], owner2);
      expectExit(second, 0);
      const { code, stdout, stderr } = await sending.exited;
      expect(code, stderr).toBe(0);
      const done = await held(id);
      expect(done).toMatchObject({
        status: 'approved', decided_by: { key_name: 'ops2', account: '@alice' }, approvals_required: 2,
        approvals: [{ key_name: 'seed', account: '@alice' }, { key_name: 'ops2', account: '@alice' }],
      });
      expect(stdout).toContain(done.transfer_id);
      const paid = (await agentTransfers()).filter((x) => x.transfer_id === done.transfer_id);
      expect(paid).toHaveLength(1);
      expect(await agentTransfers()).toHaveLength(before + 1);
      // Decided: a third approval changes nothing.
      expectExit(await runSvc(['pending', 'approve', id], owner1), 5);
      expect(await agentTransfers()).toHaveLength(before + 1);
    } finally {
      if (!sending.done()) sending.child.kill();
    }
  }, 90_000);

  it('approve, then a reject by the other key: rejected, nothing paid', async () => {
    const before = (await agentTransfers()).length;
    const id = await propose('60');
    expectExit(await runSvc(['pending', 'approve', id], owner2), 0);
    expectExit(await runSvc(['pending', 'reject', id], owner1), 0);
    expect(await held(id)).toMatchObject({ status: 'rejected', decided_by: { key_name: 'seed' }, approvals: [{ key_name: 'ops2' }] });
    expect(await agentTransfers()).toHaveLength(before);
  }, 60_000);

  it('a policy without the field needs one approval, as before', async () => {
    await ok(['agent', 'create', 'single', '--approval-threshold', '50', '--save-profile', 'single'], owner1);
    await ok(['sandbox', 'fund', '@alice/single', '100'], owner1);
    const single = { ...owner1, SVC_PROFILE: 'single' };
    const id = await propose('70', single);
    expectExit(await runSvc(['pending', 'approve', id], owner2), 0);
    expect(await held(id)).toMatchObject({ status: 'approved', approvals_required: 1, approvals: [{ key_name: 'ops2' }] });
    expect(await agentTransfers(single)).toHaveLength(1);
    const ls = (await ok(['agent', 'ls'], owner1)).stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(ls.find((r) => r[0] === '@alice/single')![ls[0]!.indexOf('approvals_required')]).toBe('1');
  }, 60_000);

  it('1 of 2, then the deadline: expired, and a late approval is refused (exit 5)', async () => {
    const before = (await agentTransfers()).length;
    const id = await propose('80');
    expectExit(await runSvc(['pending', 'approve', id], owner1), 0);
    await ok(['sandbox', 'clock', 'advance', '15m'], owner1);
    const late = await runSvc(['pending', 'approve', id], owner2);
    expectExit(late, 5);
    expect(late.stderr).toMatch(/transaction_expired/);
    expect(await held(id)).toMatchObject({ status: 'expired', approvals: [{ key_name: 'seed' }] });
    expect(await agentTransfers()).toHaveLength(before);
  }, 60_000);
});
