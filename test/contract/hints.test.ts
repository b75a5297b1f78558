// Errors that say what to do next (issue 15), in-process against the sandbox and scripted
// servers: each common failure's hint names the next command, the --json error object carries
// the same hint, colour only on a terminal, --asset refused before anything is sent, and Ctrl-C
// during `--wait` leaves the transfer settling and says how to follow it (exit 130).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/config/profiles.js';
import { runCli } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { refusedPort, startScriptedServer, UNKNOWN_TEST_KEY, type ScriptedServer } from '../helpers/scripted-server.js';

let t: TestSandbox;

beforeAll(async () => {
  t = await startTestSandbox();
});
afterAll(async () => {
  await t?.close();
});

const lines = (s: string) => s.split('\n').filter((l) => l.length > 0);
const jsonError = (stderr: string) => (JSON.parse(stderr) as { error: Record<string, unknown> }).error;

async function ok(args: string[], env: Record<string, string> = {}) {
  const r = await t.svc(args, { env });
  if (r.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r;
}

describe('each common failure has a hint with the next command', () => {
  it('insufficient balance: `svc balance`, and on the sandbox `svc sandbox fund <handle> <amount>` (never the amount)', async () => {
    const r = await t.svc(['transfer', 'send', '@acme', '987654.321078']);
    expect(r.code).toBe(6);
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(/^error: .* \(insufficient_balance, request req_\w+\)$/),
      'hint: see what the account holds with `svc balance`; add test funds with `svc sandbox fund @alice <amount>`',
    ]);
    expect(r.stderr).not.toContain('987654.321078');
    // Another asset: the fund command names it. --json: the same hint in the error object.
    const j = await t.svc(['--json', 'transfer', 'send', '@acme', '987654.321078', '--asset', 'usdc']);
    expect(j.code).toBe(6);
    expect(j.stdout).toBe('');
    expect(jsonError(j.stderr)).toMatchObject({
      code: 'insufficient_balance',
      hint: 'see what the account holds with `svc balance`; add test funds with `svc sandbox fund @alice <amount> --asset USDC`',
    });
    expect(j.stderr).not.toContain('987654.321078');
  });

  it('the fund hint names the account that sent: an agent key gets its own handle', async () => {
    await ok(['agent', 'create', 'poorbot']);
    const key = (await ok(['sandbox', 'key', 'create', '--account', '@alice/poorbot'])).stdout.trim();
    const r = await t.svc(['transfer', 'send', '@acme', '3'], { env: { SVC_API_KEY: key } });
    expect(r.code).toBe(6);
    expect(lines(r.stderr)[1]).toBe('hint: see what the account holds with `svc balance`; add test funds with `svc sandbox fund @alice/poorbot <amount>`');
  });

  it('policy denied: the `svc agent policy check` of the same send, which the owner can run as printed', async () => {
    await ok(['agent', 'create', 'strictbot', '--allow', '@acme', '--asset', 'USDC']);
    await ok(['sandbox', 'fund', '@alice/strictbot', '100', '--asset', 'USDC']);
    const key = (await ok(['sandbox', 'key', 'create', '--account', '@alice/strictbot'])).stdout.trim();
    const r = await t.svc(['transfer', 'send', '@bob', '12.508163', '--asset', 'USDC'], { env: { SVC_API_KEY: key } });
    expect(r.code).toBe(6);
    const [error, hint] = lines(r.stderr);
    expect(error).toMatch(/\(policy_violation: recipient_not_allowed, request req_\w+\)$/);
    expect(hint).toBe("hint: see which rule denies it with the owner's profile: `svc --profile <owner-profile> agent policy check @alice/strictbot --to @bob --amount <amount> --asset USDC`");
    expect(r.stderr).not.toContain('12.508163');
    const j = await t.svc(['--json', 'transfer', 'send', '@bob', '12.508163', '--asset', 'USDC'], { env: { SVC_API_KEY: key } });
    expect(jsonError(j.stderr)).toMatchObject({ code: 'policy_violation', reason: 'recipient_not_allowed', hint: hint!.slice('hint: '.length) });
    // The hint is a working command: with the amount and the owner's profile (the harness's
    // "sandbox") filled in, the owner gets the verdict.
    const command = /`svc (.*)`$/.exec(hint!)![1]!.replace('<amount>', '12.508163').replace('<owner-profile>', 'sandbox').split(' ');
    const check = await t.svc(command);
    expect(check.code, check.stderr).toBe(0); // a simulation: it ran, whatever the verdict
    expect(check.stdout).toMatch(/^DENY {2}recipient @bob is not in the agent/);
  });

  it('a refused key: `svc profile add`, in the report and in the JSON error', async () => {
    const r = await t.svc(['account'], { env: { SVC_API_KEY: UNKNOWN_TEST_KEY } });
    expect(r.code).toBe(3);
    expect(lines(r.stderr)[1]).toMatch(/^hint: the sandbox does not know this key: save a working one with `svc profile add <name>`/);
    const j = await t.svc(['--json', 'account'], { env: { SVC_API_KEY: UNKNOWN_TEST_KEY } });
    expect(jsonError(j.stderr)).toMatchObject({ code: 'unauthorized', hint: expect.stringContaining('`svc profile add <name>`') });
  });

  it('connection refused on loopback: is the sandbox running? `svc sandbox start`; a send says nothing was made', async () => {
    const port = await refusedPort();
    const env = { SVC_BASE_URL: `http://127.0.0.1:${port}` };
    const ls = await t.svc(['transfer', 'ls'], { env });
    expect(ls.code).toBe(7);
    expect(lines(ls.stderr)).toEqual([
      `error: could not connect to 127.0.0.1:${port} (connection refused) (network_error)`,
      'hint: is the sandbox running? start it with `svc sandbox start`',
    ]);
    // Refused on every try: no request left the machine, so no "may or may not" and no retry key.
    const send = await t.svc(['transfer', 'send', '@acme', '1'], { env });
    expect(send.code).toBe(7);
    expect(lines(send.stderr)[1]).toBe('hint: is the sandbox running? start it with `svc sandbox start`');
    expect(send.stderr).not.toMatch(/may or may not|idempotency/);
  });
});

describe('colour: `error:` red and the hint dim on a terminal only', () => {
  const RED = '\u001b[31merror:\u001b[39m ';
  const DIM_HINT = /^\u001b\[2mhint: is the sandbox running\? start it with `svc sandbox start`\u001b\[22m$/m;
  let env: Record<string, string>;
  beforeAll(async () => {
    env = { ...t.env, SVC_BASE_URL: `http://127.0.0.1:${await refusedPort()}` };
    delete env.NO_COLOR;
  });

  it('stderr a terminal, colour on', async () => {
    const r = await runCli(['transfer', 'ls'], { env, tty: { stdout: true, stderr: true } });
    expect(r.code).toBe(7);
    expect(r.stderr.startsWith(RED)).toBe(true);
    expect(r.stderr).toMatch(DIM_HINT);
  });

  it('no colour with NO_COLOR, --no-color, --json, or stderr not a terminal (even when stdout is one)', async () => {
    const runs = [
      await runCli(['transfer', 'ls'], { env: { ...env, NO_COLOR: '1' }, tty: { stdout: true, stderr: true } }),
      await runCli(['--no-color', 'transfer', 'ls'], { env, tty: { stdout: true, stderr: true } }),
      await runCli(['--json', 'transfer', 'ls'], { env, tty: { stdout: true, stderr: true } }),
      await runCli(['transfer', 'ls'], { env, tty: { stdout: true, stderr: false } }),
      await runCli(['transfer', 'ls'], { env: { ...env, TERM: 'dumb' }, tty: { stdout: true, stderr: true } }),
    ];
    for (const r of runs) {
      expect(r.code).toBe(7);
      expect(r.stderr).not.toContain('\u001b');
    }
    expect(JSON.parse(runs[2]!.stderr)).toMatchObject({ error: { code: 'network_error', hint: 'is the sandbox running? start it with `svc sandbox start`' } });
  });
});

describe('--asset is checked locally, before anything is sent, wherever the flag exists', () => {
  let server: ScriptedServer;
  let configDir: string;
  beforeAll(async () => {
    server = await startScriptedServer(() => ({ status: 500, body: { error: { code: 'should_not_be_called', message: 'no request expected' } } }));
    configDir = mkdtempSync(join(tmpdir(), 'svc-asset-'));
    // A sandbox profile pointing at the recording server: admin commands would reach it too.
    new ProfileStore(configDir).set('sandbox', { apiKey: UNKNOWN_TEST_KEY, baseUrl: server.url, sandboxAdminToken: 'sbx_admin_test' }, { makeCurrent: true });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  const cases: string[][] = [
    ['transfer', 'send', '@acme', '1', '--asset', 'EUR'],
    ['balance', '--asset', 'EUR'],
    ['sandbox', 'fund', '@bob', '5', '--asset', 'EUR'],
    ['agent', 'policy', 'check', 'bot', '--to', '@acme', '--amount', '1', '--asset', 'EUR'],
    ['agent', 'create', 'bot', '--asset', 'USDG', '--asset', 'EUR'],
    ['agent', 'policy', 'set', 'bot', '--asset', 'EUR'],
  ];
  it.each(cases.map((c) => [c.join(' '), c] as const))('svc %s: one line naming the flag and the allowed values, exit 2, no request', async (_name, args) => {
    for (const json of [false, true]) {
      const r = await runCli([...(json ? ['--json'] : []), ...args], { env: { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      if (json) expect(JSON.parse(r.stderr)).toEqual({ error: { code: 'invalid_asset', message: '--asset "EUR" must be one of USDG, USDC' } });
      else expect(r.stderr).toBe('error: --asset "EUR" must be one of USDG, USDC (invalid_asset)\n');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('any case of a known asset is accepted (the check is not stricter than the service)', async () => {
    const r = await t.svc(['--json', 'balance', '--asset', 'usdg']);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('Ctrl-C while waiting: the transfer keeps settling (exit 130)', () => {
  /** Runs svc in-process and presses Ctrl-C once stderr shows `when`. */
  async function interruptWhen(args: string[], when: RegExp) {
    const ctrlC = new AbortController();
    let stderr = '';
    const r = await runCli(args, {
      env: t.env,
      interrupt: ctrlC.signal,
      onStderr: (s) => {
        stderr += s;
        if (when.test(stderr)) ctrlC.abort('SIGINT');
      },
    });
    return r;
  }

  it('transfer send --wait: says the transfer was submitted and how to follow it', async () => {
    const r = await interruptWhen(['transfer', 'send', '@acme', '1', '--wait', '--timeout-wait', '24h'], /submitted transfer tr_\w+/);
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    const [, id, key] = /submitted transfer (tr_\w+) \(pending\) under idempotency key (\S+)/.exec(r.stderr)!;
    expect(lines(r.stderr).slice(-2)).toEqual([
      `error: stopped waiting: transfer ${id} was submitted and keeps settling; idempotency key ${key} (interrupted)`,
      `hint: follow it with \`svc transfer get ${id} --wait\``,
    ]);
    // It really keeps settling: still pending, then confirmed when a block passes.
    expect((await t.svcJson<{ status: string }>(['transfer', 'get', id])).status).toBe('pending');
    await t.sandbox.advance(60_000);
    expect((await t.svcJson<{ status: string }>(['transfer', 'get', id, '--wait'])).status).toBe('confirmed');
  });

  it('with --json: one interrupted error object carrying the transfer id and the hint', async () => {
    const ctrlC = new AbortController();
    const sent = t.svcJson<{ transfer_id: string }>(['transfer', 'send', '@acme', '1']);
    const { transfer_id: id } = await sent;
    ctrlC.abort('SIGINT'); // pressed before the wait even starts: the first poll does not finish
    const r = await runCli(['--json', 'transfer', 'get', id, '--wait'], { env: t.env, interrupt: ctrlC.signal });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'interrupted',
        message: `stopped waiting for transfer ${id}: it keeps settling`,
        hint: `follow it with \`svc transfer get ${id} --wait\``,
        transfer_id: id,
      },
    });
  });

  it('transfer get --wait: stops waiting, says the transfer keeps settling', async () => {
    const { transfer_id: id } = await t.svcJson<{ transfer_id: string }>(['transfer', 'send', '@acme', '1']);
    const r = await interruptWhen(['transfer', 'get', id, '--wait', '--timeout-wait', '24h'], /waiting for transfer/);
    expect(r.code).toBe(130);
    expect(lines(r.stderr).slice(-2)).toEqual([
      `error: stopped waiting for transfer ${id}: it keeps settling (interrupted)`,
      `hint: follow it with \`svc transfer get ${id} --wait\``,
    ]);
  });
});

describe('sandbox fund says what it funded', () => {
  it('handle, amount and asset, on stderr; --json adds the amount to the answer', async () => {
    const r = await ok(['sandbox', 'fund', 'bob', '250']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('funded @bob with 250.00 USDG\n');
    const j = await ok(['--json', 'sandbox', 'fund', '@bob', '0.5', '--asset', 'usdc']);
    expect(JSON.parse(j.stdout)).toEqual({ ok: true, handle: '@bob', asset: 'USDC', amount: '0.5' });
  });
});
