// Issue 36: `svc profile set <name> --base-url URL | --follow-sandbox` changes a profile in place
// (as `gh config set` does; its keys stay), checked like `profile add`'s base URL, nothing sent;
// an explicit base URL stops a profile following the sandbox, and says so. `profile show` says
// what is set where. All offline: config.json is written as the commands would leave it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../helpers/cli.js';

const TEST_KEY = 'svc_test_SetFollowKeyAbCdEf1234567890';
const LIVE_KEY = 'svc_live_SetLiveKeyZyXwVu98765432100';
const DK = 'svc_dk_test_NotARealKeyButShapedLikeOne0123456789abcdef';
const SANDBOX_URL = 'http://127.0.0.1:47312';
const OLD_URL = 'http://127.0.0.1:46630';

let dir: string;
let state: string;
const file = () => join(dir, 'config.json');
const config = () => JSON.parse(readFileSync(file(), 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
const svc = (args: string[], opts: { tty?: boolean } = {}) =>
  runCli(args, { env: { SVC_CONFIG_DIR: dir, NO_COLOR: '1' }, ...(opts.tty ? { tty: { stdout: true } } : {}), columns: 200 });

function expectExit(r: CliResult, code: number): void {
  expect(r.code, `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(code);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-profile-set-'));
  state = join(dir, 'sandbox', 'state.db');
  // As `sandbox start` and `agent create --save-profile` leave them (the sandbox is not running).
  writeFileSync(file(), JSON.stringify({
    current: 'sandbox',
    profiles: {
      sandbox: { apiKey: 'svc_test_SandboxOwnKey0000000000000001', baseUrl: SANDBOX_URL, sandboxAdminToken: 'sbx_admin_x', sandbox: true, sandboxState: state },
      bot: { apiKey: TEST_KEY, baseUrl: OLD_URL, decryptionKey: DK, followsSandbox: state },
      prod: { apiKey: LIVE_KEY, baseUrl: 'https://api.example.com' },
    },
  }), { mode: 0o600 });
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('profile set', () => {
  it('--base-url changes the base URL in place, keeps the keys, and says the profile stops following the sandbox', async () => {
    const r = await svc(['profile', 'set', 'bot', '--base-url', 'https://api.example.com']);
    expectExit(r, 0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe([
      `profile "bot": base URL ${OLD_URL} → https://api.example.com`,
      '  it no longer follows the sandbox: this base URL is yours now (`svc profile set bot --follow-sandbox` makes it follow again)',
      '',
    ].join('\n'));
    expect(config().profiles.bot).toEqual({ apiKey: TEST_KEY, baseUrl: 'https://api.example.com', decryptionKey: DK });
    // Set again: nothing followed, nothing said about following.
    const json = await svc(['--json', 'profile', 'set', 'bot', '--base-url', 'https://api.example.com']);
    expectExit(json, 0);
    expect(JSON.parse(json.stdout)).toEqual({ name: 'bot', base_url: 'https://api.example.com', changes: { base_url: 'unchanged', follows_sandbox: 'none' } });
    // The global option's place works too (`svc --base-url URL profile set NAME`).
    expectExit(await svc(['--base-url', 'https://other.example.com', 'profile', 'set', 'bot']), 0);
    expect(config().profiles.bot?.baseUrl).toBe('https://other.example.com');
  });

  it('--follow-sandbox makes a test-key profile follow this config dir\'s sandbox: its URL now, and every start after', async () => {
    expectExit(await svc(['profile', 'set', 'bot', '--base-url', 'http://127.0.0.1:9']), 0);
    const r = await svc(['--json', 'profile', 'set', 'bot', '--follow-sandbox']);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual({ name: 'bot', base_url: SANDBOX_URL, follows_sandbox: state, changes: { base_url: 'replaced', follows_sandbox: 'started' } });
    expect(config().profiles.bot).toEqual({ apiKey: TEST_KEY, baseUrl: SANDBOX_URL, decryptionKey: DK, followsSandbox: state });
  });

  it('refuses what profile add refuses, and more, before changing anything (exit codes of src/errors.ts)', async () => {
    const before = readFileSync(file(), 'utf8');
    const cases: Array<[string[], number, RegExp]> = [
      [['profile', 'set', 'prod', '--base-url', 'http://127.0.0.1:9'], 2, /^error: refusing to send a live API key over plain HTTP to 127\.0\.0\.1:9 \(from --base-url\): .*; nothing was changed \(insecure_base_url\)\n/],
      [['profile', 'set', 'bot', '--base-url', 'http://api.example.com'], 2, /^error: refusing to send an API key over plain HTTP to api\.example\.com; nothing was changed \(insecure_base_url\)\n/],
      [['profile', 'set', 'bot', '--base-url', 'not a url'], 2, /^error: base URL "not a url" is not a valid URL; nothing was changed \(invalid_base_url\)\n/],
      [['profile', 'set', 'nobody', '--base-url', 'https://api.example.com'], 4, /^error: profile "nobody" does not exist \(profile_not_found\)\n/],
      [['profile', 'set', 'bot'], 2, /^error: nothing to set: give --base-url URL or --follow-sandbox \(usage\)\nhint: e\.g\. `svc profile set bot --base-url https:\/\/api\.example\.com`\n/],
      [['profile', 'set', 'bot', '--follow-sandbox', '--base-url', 'https://api.example.com'], 2, /^error: --base-url and --follow-sandbox exclude each other: .* \(usage\)\n/],
      [['profile', 'set', 'sandbox', '--base-url', 'https://api.example.com'], 2, /^error: profile "sandbox" is the sandbox's own profile: `svc sandbox start` writes its base URL at every start; nothing was changed \(invalid_argument\)\n/],
      [['profile', 'set', 'prod', '--follow-sandbox'], 2, /^error: profile "prod" holds a live key: only a svc_test_ key follows the sandbox; nothing was changed \(invalid_argument\)\n/],
    ];
    for (const [argv, code, message] of cases) {
      const r = await svc(argv);
      expect([r.code, r.stdout], argv.join(' ')).toEqual([code, '']);
      expect(r.stderr, argv.join(' ')).toMatch(message);
      const json = await svc(['--json', ...argv]);
      expect(json.code).toBe(code);
      expect(Object.keys(JSON.parse(json.stderr))).toEqual(['error']);
    }
    expect(readFileSync(file(), 'utf8')).toBe(before);
  });

  it('--follow-sandbox with no sandbox that keeps a state file: refused, and says how to get one', async () => {
    const c = config();
    delete c.profiles.sandbox;
    writeFileSync(file(), JSON.stringify(c), { mode: 0o600 });
    const r = await svc(['profile', 'set', 'bot', '--follow-sandbox']);
    expectExit(r, 2);
    expect(r.stderr).toMatch(/^error: no sandbox of this config directory keeps a state file to follow .*; nothing was changed \(invalid_argument\)\nhint: start one with `svc sandbox start`, then run this again\n$/);
  });
});

describe('profile show: what is set where', () => {
  it('says where the base URL comes from (the sandbox, following it, or the profile) and where the secrets are', async () => {
    const shown = async (name: string) => JSON.parse((await svc(['--json', 'profile', 'show', name])).stdout) as Record<string, unknown>;
    expect(await shown('sandbox')).toMatchObject({ base_url: SANDBOX_URL, base_url_source: 'sandbox', secrets: 'file' });
    expect(await shown('bot')).toMatchObject({ base_url: OLD_URL, base_url_source: 'follows_sandbox', follows_sandbox: state });
    expect(await shown('prod')).toMatchObject({ base_url_source: 'profile' });
    expect(await shown('prod')).not.toHaveProperty('follows_sandbox');

    const tty = await svc(['profile', 'show', 'bot'], { tty: true });
    expectExit(tty, 0);
    expect(tty.stdout).toContain(`Base URL        ${OLD_URL}\n`);
    expect(tty.stdout).toContain(`Base URL from   the sandbox of ${state}: each start of it moves this profile there (\`svc profile set bot --base-url URL\` sets one of your own)\n`);
    expect(tty.stdout).toContain(`Secrets in      ${file()} (mode 0600)\n`);
    expect((await svc(['profile', 'show', 'sandbox'], { tty: true })).stdout).toContain('Base URL from   the sandbox: this is its own profile, written at each `svc sandbox start`\n');
    expect((await svc(['profile', 'show', 'prod'], { tty: true })).stdout).toContain('Base URL from   this profile (`svc profile set prod --base-url URL` changes it)\n');

    // After --base-url: the profile's own.
    expectExit(await svc(['profile', 'set', 'bot', '--base-url', 'https://api.example.com']), 0);
    expect(await shown('bot')).toMatchObject({ base_url: 'https://api.example.com', base_url_source: 'profile' });
  });
});
