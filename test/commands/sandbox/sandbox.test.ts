// `svc sandbox ...`: the sandbox runs as the built binary (`npm test` builds it first), so start-up,
// signals and the state file are real; the commands against it run in-process.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, svcIn, type CliResult } from '../../helpers/cli.js';
import { spawnSandbox, type SpawnedSandbox } from '../../helpers/e2e.js';
import { dbBytes } from '../../sandbox/helpers.js';

let configDir: string;
let env: Record<string, string>;
const children: ChildProcess[] = [];

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-sbx-cli-'));
  env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(configDir, { recursive: true, force: true });
});

async function start(args: string[] = []): Promise<SpawnedSandbox> {
  const s = await spawnSandbox(['sandbox', 'start', '--port', '0', ...args], env);
  children.push(s.child);
  return s;
}

const svc = (args: string[]) => svcIn(args, env);
const config = () => JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));

/** `svc sandbox start` in this process, stopped (as by Ctrl-C) as soon as it is listening. */
function startInProcess(args: string[]): Promise<CliResult> {
  const stop = new AbortController();
  return runCli(['sandbox', 'start', '--port', '0', ...args], {
    env,
    interrupt: stop.signal,
    onStderr: (text) => {
      if (text.includes('svc sandbox listening on')) stop.abort('SIGTERM');
    },
  });
}

const TEST_KEY = 'svc_test_UsersOwnTestKey0000000001';
const LIVE_KEY = 'svc_live_UsersOwnLiveKey0000000001';

describe('svc sandbox start', () => {
  it('prints the world once, writes a current "sandbox" profile, and exits 0 on SIGTERM with the state saved', async () => {
    const s = await start(['--json']);
    const doc = JSON.parse(s.stdout());
    expect(doc).toMatchObject({ url: s.url, chain_id: 46630, environment: 'test', restored: false, profile: 'sandbox', current: true, block_time_ms: 1500 });
    expect(doc.state_path).toBe(join(configDir, 'sandbox', 'state.db'));
    expect(doc.accounts.map((a: { handle: string }) => a.handle)).toEqual(['@alice', '@acme', '@bob', '@oldwallet']);
    expect(doc.accounts.every((a: { api_key: string }) => /^svc_test_[A-Za-z0-9]{32}$/.test(a.api_key))).toBe(true);
    expect(doc.external_addresses.map((e: { address: string }) => e.address)).toContain('0x000000000000000000000000000000000000dEaD');
    const profile = config().profiles.sandbox;
    expect(config().current).toBe('sandbox');
    expect(profile).toEqual({
      apiKey: doc.accounts[0].api_key,
      baseUrl: s.url,
      sandboxAdminToken: expect.stringMatching(/^sbx_admin_/),
      decryptionKey: doc.accounts[0].decryption_key, // @alice's, handed out once and kept 0600 in the profile
      sandbox: true, // written by `sandbox start`: the only kind of profile it rewrites
      sandboxState: join(configDir, 'sandbox', 'state.db'), // the world it serves: what the profiles that follow it are marked with
    });
    expect(doc.accounts[0].decryption_key).toMatch(/^svc_dk_test_/);

    // The profile works for the regular commands and the admin ones.
    const me = await svc(['--json', 'account']);
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout).handle).toBe('@alice');
    expect((await svc(['sandbox', 'fund', '@alice', '7341.902817'])).code).toBe(0);

    expect(await s.stop('SIGTERM')).toBe(0);
    expect(s.stderr()).toContain('stopping: every change is already saved in');
    const statePath = join(configDir, 'sandbox', 'state.db');
    expect(statSync(statePath).mode & 0o777).toBe(0o600);
    expect(statSync(join(configDir, 'sandbox')).mode & 0o777).toBe(0o700);
    expect(existsSync(`${statePath}.lock`)).toBe(false); // released at exit
    expect(dbBytes(statePath)).not.toMatch(/7341\.902817|7341902817/);

    // A restart keeps the world and the profile's key; no key is printed again.
    const again = await start(['--json']);
    const doc2 = JSON.parse(again.stdout());
    expect(doc2).toMatchObject({ restored: true, accounts: [] });
    expect(again.stdout()).not.toContain('svc_test_');
    expect(config().profiles.sandbox.apiKey).toBe(profile.apiKey);
    expect(config().profiles.sandbox.baseUrl).toBe(again.url);
    expect(config().profiles.sandbox.sandboxAdminToken).not.toBe(profile.sandboxAdminToken);
    expect((await svc(['account'])).code).toBe(0);
    expect(await again.stop('SIGINT')).toBe(0);
  });

  it('prints a table on a pipe (TSV) and keeps request logs off a pipe', async () => {
    const s = await start(['--ephemeral']);
    const lines = s.stdout().trim().split('\n');
    expect(lines[0]).toBe(`url\t${s.url}`);
    const header = lines.findIndex((l) => l.startsWith('handle\t'));
    expect(lines[header]).toBe('handle\ttype\tkyc_status\tconfidential_ready\tpublic_key\tapi_key\tdecryption_key');
    expect(lines.slice(header + 1).map((l) => l.split('\t')[0])).toEqual(['@alice', '@acme', '@bob', '@oldwallet']);
    await svc(['account']);
    expect(s.stderr()).not.toMatch(/GET \/v1\/accounts\/me/);
    expect(await s.stop()).toBe(0);
    expect(existsSync(join(configDir, 'sandbox', 'state.db'))).toBe(false);
  });

  it('a restored state without a usable profile key gets a new key for @alice', async () => {
    const s = await start();
    expect(await s.stop()).toBe(0);
    rmSync(join(configDir, 'config.json'));
    const again = await start(['--json']);
    expect(again.stderr()).toContain('created a new key for @alice');
    expect(JSON.parse((await svc(['--json', 'account'])).stdout).handle).toBe('@alice');
    expect(await again.stop()).toBe(0);
  });

  it('writes only profiles it wrote: one of yours is refused (exit 2) before anything starts, and nothing changes', async () => {
    // A world to restore: the old code sent the profile's key to it before replacing the profile.
    const first = await start();
    expect(await first.stop()).toBe(0);
    const state = join(configDir, 'sandbox', 'state.db');
    const stateBefore = statSync(state).mtimeMs;
    const c = config();
    c.profiles.prod = { apiKey: LIVE_KEY, baseUrl: 'https://api.example.com' };
    c.profiles.work = { apiKey: TEST_KEY, baseUrl: 'http://127.0.0.1:46630' }; // yours, for a local service
    // Marked as the sandbox's by hand, but a live key is never the sandbox's: never sent, never replaced.
    c.profiles.forged = { apiKey: LIVE_KEY, baseUrl: 'http://127.0.0.1:46630', sandboxAdminToken: 'sbx_admin_x', sandbox: true };
    writeFileSync(join(configDir, 'config.json'), JSON.stringify(c, null, 2), { mode: 0o600 });
    const before = readFileSync(join(configDir, 'config.json'), 'utf8');

    for (const name of ['prod', 'work', 'forged']) {
      const r = await startInProcess(['--profile', name]);
      expect([r.code, r.stdout], r.stderr).toEqual([2, '']);
      expect(r.stderr).toBe([
        `error: profile "${name}" exists and was not written by \`svc sandbox start\`; refusing to replace it (profile_exists)`,
        `hint: name another profile for the sandbox with --profile <name>, or remove this one first (\`svc profile rm ${name}\`)`,
        '',
      ].join('\n'));
      const j = await startInProcess(['--json', '--profile', name]);
      expect([j.code, j.stdout]).toEqual([2, '']);
      expect(JSON.parse(j.stderr)).toMatchObject({ error: { code: 'profile_exists' } });
    }
    // Nor do the admin commands use a profile the sandbox did not write (reset would rewrite it).
    for (const argv of [['--profile', 'forged', '--yes', 'sandbox', 'reset'], ['--profile', 'prod', 'sandbox', 'fund', '@bob', '1']]) {
      const r = await svc(argv);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^error: profile "(forged|prod)" is not a sandbox profile \(it was not written by `svc sandbox start`\) \(no_sandbox_profile\)\n/);
    }
    // The name rule of `profile add`, before anything starts.
    for (const name of ['bad name!', '__proto__', '-x', 'a'.repeat(33)]) {
      const r = await startInProcess([`--profile=${name}`, '--ephemeral']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^error: profile name ".*" is invalid: .* \(invalid_profile_name\)\n$/);
    }
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(before);
    expect(statSync(state).mtimeMs).toBe(stateBefore); // the world was not opened

    // Its own profile is rewritten: marked, or written before the mark (an admin token, a test key, loopback).
    const legacy = config();
    delete legacy.profiles.sandbox.sandbox;
    writeFileSync(join(configDir, 'config.json'), JSON.stringify(legacy), { mode: 0o600 });
    const again = await startInProcess(['--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ restored: true, profile: 'sandbox' });
    expect(config().profiles.sandbox).toMatchObject({ apiKey: legacy.profiles.sandbox.apiKey, sandbox: true });
    expect(config().profiles.prod).toEqual(c.profiles.prod);
    expect(config().profiles.forged).toEqual(c.profiles.forged);
  });

  it('refuses a non-loopback host and a bad port (exit 2)', async () => {
    const r = await svc(['sandbox', 'start', '--host', '0.0.0.0', '--ephemeral']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: refusing to listen on 0.0.0.0: the sandbox serves loopback addresses only');
    expect((await svc(['sandbox', 'start', '--port', 'x', '--ephemeral'])).code).toBe(2);
    expect((await svc(['sandbox', 'start', '--block-time', 'soon', '--ephemeral'])).code).toBe(2);
  });

  it('refuses a port fetch() clients cannot reach, before it starts (not "fetch failed" after)', async () => {
    for (const port of ['1', '6000']) {
      const r = await svc(['sandbox', 'start', '--port', port, '--ephemeral', '--json']);
      expect(r.code, r.stderr).toBe(2);
      expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'invalid_option', message: `port ${port} is one that fetch() clients (browsers, Node, most SDKs) refuse to connect to` });
      expect(r.stdout).toBe('');
    }
  });
});

describe('admin commands', () => {
  let s: SpawnedSandbox;
  beforeEach(async () => {
    s = await start(['--ephemeral', '--block-time', '2s']);
  });
  afterEach(async () => {
    await s.stop();
  });

  it('fund, clock advance and clock show', async () => {
    const funded = await svc(['--json', 'sandbox', 'fund', 'bob', '12.5', '--asset', 'usdc']);
    expect(funded.code).toBe(0);
    // What was funded, the amount included: the user chose it (the sandbox does not echo it).
    expect(JSON.parse(funded.stdout)).toEqual({ ok: true, handle: '@bob', asset: 'USDC', amount: '12.5' });
    const plain = await svc(['sandbox', 'fund', '@bob', '12.5']);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toBe('funded @bob with 12.50 USDG\n');
    expect((await svc(['sandbox', 'fund', '@bob', '1.1234567'])).code).toBe(2);
    const missing = await svc(['sandbox', 'fund', '@nobody', '1']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^error: no sandbox account has the handle @nobody \(account_not_found, request req_[0-9a-f]{32}\)$/m);

    const clock = await svc(['--json', 'sandbox', 'clock', 'advance', '1h30m']);
    expect(clock.code).toBe(0);
    expect(JSON.parse(clock.stdout).offset_ms).toBe(5_400_000);
    const shown = await svc(['sandbox', 'clock']);
    expect(shown.stdout).toMatch(/^now\t\d{4}-\d{2}-\d{2}T.*Z\noffset_ms\t5400000\n$/);
    expect((await svc(['--json', 'sandbox', 'clock', 'show'])).code).toBe(0);
    // A bare number is seconds, as for every duration.
    const bare = await svc(['--json', 'sandbox', 'clock', 'advance', '5']);
    expect(bare.code, bare.stderr).toBe(0);
    expect(JSON.parse(bare.stdout).offset_ms).toBe(5_405_000);
    const bad = await svc(['sandbox', 'clock', 'advance', '5 s']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<duration> "5 s" must be a duration like 500ms, 30s, 2m, 1h, 1d or 1h30m (a bare number is seconds), at most 3650d');
  });

  it('key create prints the key once; key ls never shows it; revoke asks, then refuses the key', async () => {
    const created = await svc(['sandbox', 'key', 'create', '--account', '@acme', '--name', 'ci']);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^svc_test_[A-Za-z0-9]{32}$/);
    expect(created.stderr).toMatch(/^created key_\w+ "ci" for @acme; the key above is shown once$/m);
    const viaKey = await svcIn(['--json', 'account'], { ...env, SVC_API_KEY: key });
    expect(JSON.parse(viaKey.stdout).handle).toBe('@acme');

    const ls = await svc(['--json', 'sandbox', 'key', 'ls']);
    const keys = JSON.parse(ls.stdout);
    expect(Array.isArray(keys)).toBe(true);
    expect(ls.stdout).not.toContain(key);
    const ci = keys.find((k: { name: string }) => k.name === 'ci');
    expect(ci).toMatchObject({ account: '@acme', key_hint: `svc_test_****${key.slice(-4)}`, request_count: 1 });

    const asked = await svc(['sandbox', 'key', 'revoke', ci.key_id]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/^hint: .*pass --yes to confirm$/m);
    const revoked = await svc(['--yes', 'sandbox', 'key', 'revoke', ci.key_id]);
    expect(revoked.code).toBe(0);
    const after = await svcIn(['account'], { ...env, SVC_API_KEY: key });
    expect(after.code).toBe(3);
    // Revoked already: nothing to take back, so no question (and no --yes needed).
    const again = await svc(['sandbox', 'key', 'revoke', ci.key_id]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/^revoked key_\w+ \(svc_test_\*{4}\w{4}, @acme\)$/m);
  });

  it('key revoke of a key the sandbox does not have fails before any question, with or without --yes', async () => {
    for (const args of [[], ['--yes'], ['--json']]) {
      const r = await svc([...args, 'sandbox', 'key', 'revoke', 'key_0000000000000000']);
      expect(r.code, args.join(' ')).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toMatch(/--yes|confirm/);
      if (args[0] === '--json') expect(JSON.parse(r.stderr).error.code).toBe('key_not_found');
      else expect(r.stderr).toMatch(/^error: no API key key_0000000000000000/m);
    }
  });

  it('reset asks first, then prints new keys and moves the profile to @alice’s new key', async () => {
    const before = config().profiles.sandbox.apiKey;
    expect((await svc(['sandbox', 'reset'])).code).toBe(2);
    const r = await svc(['--json', '--yes', 'sandbox', 'reset']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout); // the control API's answer (docs/json.md) plus the profile
    expect(doc).toMatchObject({ ok: true, profile: 'sandbox' });
    expect(doc.seeded.map((a: { handle: string }) => a.handle)).toEqual(['@alice', '@acme', '@bob', '@oldwallet']);
    const after = config().profiles.sandbox.apiKey;
    expect(after).toBe(doc.seeded[0].api_key);
    expect(after).not.toBe(before);
    expect((await svc(['account'])).code).toBe(0);
    expect((await svcIn(['account'], { ...env, SVC_API_KEY: before })).code).toBe(3);
  });

  it('a wrong admin token or a missing profile gives a clear error', async () => {
    const noProfile = await svc(['--profile', 'elsewhere', 'sandbox', 'clock']);
    expect(noProfile.code).toBe(2);
    expect(noProfile.stderr).toContain('error: no profile "elsewhere": cannot find the sandbox');
    const c = config();
    c.profiles.sandbox.sandboxAdminToken = 'sbx_admin_wrong';
    writeFileSync(join(configDir, 'config.json'), JSON.stringify(c));
    const wrong = await svc(['sandbox', 'clock']);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('error: the sandbox refused the admin token');
  });
});
