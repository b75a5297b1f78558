// Where a command's key, base URL and decryption key come from: flags, then a profile named by
// --profile or SVC_PROFILE (whole: the environment cannot send its key elsewhere), then the
// environment, then the current profile (docs/configuration.md). One test per row of that table,
// and the attack that made the rule: SVC_BASE_URL pointing a named profile's live key at a
// server of someone else's. Then the live key's own rule (issue 21): no default base URL, and
// never plain http, loopback included, whichever way the URL comes in; each way is tried against
// a real listener on loopback that records every connection (there must be none).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/config/profiles.js';
import { DEFAULT_SANDBOX_PORT, DEFAULT_SANDBOX_URL } from '../../src/domain/sandbox-address.js';
import { runCli } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { FAKE_LIVE_KEY, startConnectionRecorder, startScriptedServer, type ConnectionRecorder, type ScriptedServer } from '../helpers/scripted-server.js';

let t: TestSandbox;
let elsewhere: ScriptedServer; // records every request: a key reaching it is a leak
let liveService: ScriptedServer; // the live profile's own service: https (a live key never goes over plain http)
let dir: string;

const REFUSED = { status: 401, body: { error: { code: 'unauthorized', message: 'no' } } };

beforeAll(async () => {
  t = await startTestSandbox();
  elsewhere = await startScriptedServer(() => REFUSED);
  liveService = await startScriptedServer(() => REFUSED, { tls: true });
  dir = mkdtempSync(join(tmpdir(), 'svc-precedence-'));
  const store = new ProfileStore(dir);
  const dk = (h: string) => t.sandbox.seeded.find((a) => a.handle === h)!.decryptionKey!;
  await store.set('current', { apiKey: t.keyOf('@alice'), baseUrl: t.url, decryptionKey: dk('@alice') }, { makeCurrent: true });
  await store.set('acme', { apiKey: t.keyOf('@acme'), baseUrl: t.url, decryptionKey: dk('@acme') });
  await store.set('work', { apiKey: FAKE_LIVE_KEY, baseUrl: liveService.url }); // a live key, as in the report
});
afterAll(async () => {
  await t?.close();
  await elsewhere?.close();
  await liveService?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function who(argv: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await runCli(['--json', ...argv, 'account'], { env: { SVC_CONFIG_DIR: dir, ...env } });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { handle: string }).handle;
}

describe('precedence: flag > named profile > environment > current profile', () => {
  it('the current profile, when nothing else says otherwise', async () => {
    expect(await who([])).toBe('@alice');
  });

  it('the environment over the current profile: SVC_API_KEY, SVC_BASE_URL, SVC_DECRYPTION_KEY', async () => {
    expect(await who([], { SVC_API_KEY: t.keyOf('@bob') })).toBe('@bob');
    const viaUrl = await runCli(['account'], { env: { SVC_CONFIG_DIR: dir, SVC_BASE_URL: elsewhere.url } });
    expect(viaUrl.code).toBe(3); // it went where the environment said
    expect(elsewhere.requests.pop()!.headers.authorization).toBe(`Bearer ${t.keyOf('@alice')}`);
    const wrongDk = await runCli(['balance'], { env: { SVC_CONFIG_DIR: dir, SVC_DECRYPTION_KEY: t.sandbox.seeded.find((a) => a.handle === '@acme')!.decryptionKey! } });
    expect(wrongDk.code).toBe(1); // @acme's key does not open @alice's balance: the environment's key was used
    expect(wrongDk.stderr).toMatch(/\(decryption_failed\)/);
  });

  it('a named profile (--profile or SVC_PROFILE) over the environment: its own key, base URL and decryption key', async () => {
    const env = { SVC_API_KEY: t.keyOf('@bob'), SVC_BASE_URL: elsewhere.url, SVC_DECRYPTION_KEY: 'svc_dk_test_garbage' };
    elsewhere.requests.length = 0;
    expect(await who(['--profile', 'acme'], env)).toBe('@acme');
    expect(await who([], { ...env, SVC_PROFILE: 'acme' })).toBe('@acme');
    const balance = await runCli(['--json', 'balance'], { env: { SVC_CONFIG_DIR: dir, ...env, SVC_PROFILE: 'acme' } });
    expect(balance.code, balance.stderr).toBe(0); // the profile's decryption key, not the garbage one
    expect(JSON.parse(balance.stdout)[0].amount).toBe('50000.00');
    expect(elsewhere.requests).toEqual([]);
  });

  it('the attack: SVC_BASE_URL left in the environment never receives a named profile\'s live key', async () => {
    elsewhere.requests.length = 0;
    liveService.requests.length = 0;
    const r = await runCli(['--yes', '--profile', 'work', 'account'], { env: { SVC_CONFIG_DIR: dir, SVC_BASE_URL: elsewhere.url } });
    expect(r.code).toBe(3); // the profile's own service (which does not know this key) answered
    expect(liveService.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${FAKE_LIVE_KEY}`]);
    expect(elsewhere.requests).toEqual([]);
  });

  it("the current profile's live key and SVC_BASE_URL naming another https service: refused (base_url_not_allowed, exit 2), nothing reaches it; --base-url on the command line takes it there", async () => {
    const other = await startScriptedServer(() => REFUSED, { tls: true });
    const liveCurrent = mkdtempSync(join(tmpdir(), 'svc-precedence-livecur-'));
    try {
      await new ProfileStore(liveCurrent).set('prod', { apiKey: FAKE_LIVE_KEY, baseUrl: liveService.url }, { makeCurrent: true });
      const env = { SVC_CONFIG_DIR: liveCurrent, NO_COLOR: '1' };
      const r = await runCli(['--yes', 'account'], { env: { ...env, SVC_BASE_URL: other.url } });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: SVC_BASE_URL \(https:\/\/127\.0\.0\.1:\d+\) would send the live key of profile "prod" to another service than its own service \(https:\/\/127\.0\.0\.1:\d+\); nothing was sent \(base_url_not_allowed\)$/m);
      expect(r.stderr).not.toContain(FAKE_LIVE_KEY);
      expect(other.requests).toEqual([]);
      const j = await runCli(['--json', '--yes', 'account'], { env: { ...env, SVC_BASE_URL: other.url } });
      expect(JSON.parse(j.stderr).error.code).toBe('base_url_not_allowed');
      // The profile's own URL in the environment is no other origin; --base-url is the user's word.
      expect((await runCli(['--yes', 'account'], { env: { ...env, SVC_BASE_URL: liveService.url } })).code).toBe(3);
      const flag = await runCli(['--yes', '--base-url', other.url, 'account'], { env });
      expect(flag.code).toBe(3); // it went where the command line said
      expect(other.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${FAKE_LIVE_KEY}`]);
      // A test key from the environment is the environment's to send: unchanged.
      expect((await runCli(['account'], { env: { ...env, SVC_API_KEY: t.keyOf('@bob'), SVC_BASE_URL: t.url } })).code).toBe(0);
    } finally {
      await other.close();
      rmSync(liveCurrent, { recursive: true, force: true });
    }
  });

  it('a flag over everything: --base-url with a named profile', async () => {
    elsewhere.requests.length = 0;
    const r = await runCli(['--profile', 'acme', '--base-url', elsewhere.url, 'account'], { env: { SVC_CONFIG_DIR: dir } });
    expect(r.code).toBe(3);
    expect(elsewhere.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${t.keyOf('@acme')}`]);
    expect(await who(['--base-url', t.url], { SVC_BASE_URL: elsewhere.url })).toBe('@alice');
  });

  it('nothing at all: no key (exit 3), and for a test key the default base URL is the local sandbox', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-precedence-empty-'));
    try {
      const r = await runCli(['account'], { env: { SVC_CONFIG_DIR: empty } });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/\(no_api_key\)/);
      const v = await runCli(['--verbose', 'account'], { env: { SVC_CONFIG_DIR: empty, SVC_API_KEY: 'svc_test_0123456789abcdef0123' }, clock: { now: Date.now, sleep: async () => {} } });
      expect(v.stderr).toMatch(/> GET http:\/\/127\.0\.0\.1:46630\/v1\/accounts\/me/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('a live key: no default base URL, and never plain http, not even to this machine (issue 21)', () => {
  let listener: ConnectionRecorder; // someone listening on a loopback port
  let atDefault: ConnectionRecorder | undefined; // ... and where the sandbox would be, when no sandbox holds the port
  let liveDir: string; // a current live profile with its own https URL
  const TEST_KEY = 'svc_test_0123456789abcdef0123';

  beforeAll(async () => {
    listener = await startConnectionRecorder();
    // A sandbox of someone's may hold the default port: then --verbose's trace (no request line) is the witness.
    atDefault = await startConnectionRecorder(DEFAULT_SANDBOX_PORT).catch(() => undefined);
    liveDir = mkdtempSync(join(tmpdir(), 'svc-precedence-live-'));
    new ProfileStore(liveDir).set('prod', { apiKey: FAKE_LIVE_KEY, baseUrl: liveService.url }, { makeCurrent: true });
  });
  afterAll(async () => {
    await listener?.close();
    await atDefault?.close();
    if (liveDir) rmSync(liveDir, { recursive: true, force: true });
  });

  const connections = () => [...listener.connections, ...(atDefault?.connections ?? [])];

  /**
   * `argv` run as a script would (no terminal), plain with --verbose and with --json: exit 2 with
   * `code`, nothing on stdout, no request traced, one error object with --json, the key never
   * shown. Returns the plain run's error line.
   */
  async function expectRefused(code: string, argv: string[], env: Record<string, string>, input?: string): Promise<string> {
    const opts = { env: { NO_COLOR: '1', ...env }, ...(input === undefined ? {} : { input }) };
    const plain = await runCli(['--verbose', ...argv], opts);
    const json = await runCli(['--json', ...argv], opts);
    for (const r of [plain, json]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toContain(FAKE_LIVE_KEY);
    }
    expect(plain.stderr).not.toMatch(/^> /m); // no request was even begun
    const [line, hint, ...rest] = plain.stderr.trimEnd().split('\n');
    expect(line).toMatch(new RegExp(`^error: .* \\(${code}\\)$`));
    expect(hint).toMatch(/^hint: /);
    expect(rest).toEqual([]);
    const lines = json.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({ error: { code, message: expect.any(String), hint: expect.any(String) } });
    return line!;
  }

  it('SVC_API_KEY alone (no profile, no URL): exit 2, base_url_required naming what to set; nothing connects to the sandbox\'s port', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-precedence-empty-'));
    try {
      for (const argv of [['account'], ['--yes', 'transfer', 'send', '@acme', '1'], ['balance']]) {
        const line = await expectRefused('base_url_required', argv, { SVC_CONFIG_DIR: empty, SVC_API_KEY: FAKE_LIVE_KEY });
        expect(line).toBe("error: a live API key has no default base URL: set --base-url, SVC_BASE_URL or the profile's base URL (base_url_required)");
      }
      expect(connections()).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('profile add without --base-url refuses a live key, checked or not, and saves nothing; the command after it has no key', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'svc-precedence-add-'));
    try {
      for (const flags of [[], ['--no-verify']]) {
        const line = await expectRefused('base_url_required', ['profile', 'add', 'prod', '--key-stdin', ...flags], { SVC_CONFIG_DIR: fresh }, `${FAKE_LIVE_KEY}\n`);
        expect(line).toBe("error: a live API key has no default base URL: give the service's https:// URL with --base-url; nothing was saved (base_url_required)");
      }
      expect(JSON.parse((await runCli(['--json', 'profile', 'ls'], { env: { SVC_CONFIG_DIR: fresh } })).stdout)).toEqual([]);
      const after = await runCli(['account'], { env: { SVC_CONFIG_DIR: fresh } });
      expect(after.code).toBe(3);
      expect(after.stderr).toMatch(/\(no_api_key\)/);
      // A profile an older svc saved that way (the sandbox's URL) is refused when used.
      new ProfileStore(fresh).set('old', { apiKey: FAKE_LIVE_KEY, baseUrl: DEFAULT_SANDBOX_URL }, { makeCurrent: true });
      const line = await expectRefused('insecure_base_url', ['account'], { SVC_CONFIG_DIR: fresh });
      expect(line).toBe(`error: refusing to send a live API key over plain HTTP to 127.0.0.1:${DEFAULT_SANDBOX_PORT} (from profile "old"): a svc_live_ key goes over https:// only, even to this machine (insecure_base_url)`);
      expect(connections()).toEqual([]);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('a current live profile with a plain-http SVC_BASE_URL left over: exit 2, insecure_base_url naming SVC_BASE_URL; nothing connects anywhere', async () => {
    liveService.requests.length = 0;
    for (const argv of [['account'], ['--yes', 'transfer', 'send', '@acme', '1']]) {
      const line = await expectRefused('insecure_base_url', argv, { SVC_CONFIG_DIR: liveDir, SVC_BASE_URL: listener.url });
      expect(line).toBe(`error: refusing to send a live API key over plain HTTP to ${new URL(listener.url).host} (from SVC_BASE_URL): a svc_live_ key goes over https:// only, even to this machine (insecure_base_url)`);
    }
    expect(connections()).toEqual([]);
    expect(liveService.requests).toEqual([]); // not sent to the profile's own URL instead either
  });

  it('--base-url http://127.0.0.1:<port> with a live key: refused for a command and at profile add (nothing saved); no connection', async () => {
    const flag = ['--base-url', listener.url];
    const line = await expectRefused('insecure_base_url', [...flag, 'account'], { SVC_CONFIG_DIR: liveDir });
    expect(line).toMatch(/ \(from --base-url\): a svc_live_ key goes over https:\/\/ only, even to this machine \(insecure_base_url\)$/);
    await expectRefused('insecure_base_url', [...flag, 'account'], { SVC_CONFIG_DIR: liveDir, SVC_API_KEY: FAKE_LIVE_KEY });
    const fresh = mkdtempSync(join(tmpdir(), 'svc-precedence-add-'));
    try {
      for (const flags of [[], ['--no-verify']]) {
        const add = await expectRefused('insecure_base_url', [...flag, 'profile', 'add', 'prod', '--key-stdin', ...flags], { SVC_CONFIG_DIR: fresh }, `${FAKE_LIVE_KEY}\n`);
        expect(add).toMatch(/; nothing was saved \(insecure_base_url\)$/);
      }
      expect(JSON.parse((await runCli(['--json', 'profile', 'ls'], { env: { SVC_CONFIG_DIR: fresh } })).stdout)).toEqual([]);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
    expect(connections()).toEqual([]);
    // The control: the listener does record, and a test key keeps plain http to loopback.
    const test = await runCli([...flag, 'account'], { env: { SVC_CONFIG_DIR: liveDir, SVC_API_KEY: TEST_KEY } });
    expect(test.code).toBe(3); // the listener answers 401 to anything
    expect(listener.connections.map((c) => c.received.toString())).toEqual([expect.stringContaining(`authorization: Bearer ${TEST_KEY}`)]);
  });
});
