// Where a command's key, base URL and decryption key come from: flags, then a profile named by
// --profile or SVC_PROFILE (whole: the environment cannot send its key elsewhere), then the
// environment, then the current profile (docs/configuration.md). One test per row of that table,
// and the attack that made the rule: SVC_BASE_URL pointing a named profile's live key at a
// server of someone else's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/config/profiles.js';
import { runCli } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { FAKE_LIVE_KEY, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

let t: TestSandbox;
let elsewhere: ScriptedServer; // records every request: a key reaching it is a leak
let dir: string;

beforeAll(async () => {
  t = await startTestSandbox();
  elsewhere = await startScriptedServer(() => ({ status: 401, body: { error: { code: 'unauthorized', message: 'no' } } }));
  dir = mkdtempSync(join(tmpdir(), 'svc-precedence-'));
  const store = new ProfileStore(dir);
  const dk = (h: string) => t.sandbox.seeded.find((a) => a.handle === h)!.decryptionKey!;
  store.set('current', { apiKey: t.keyOf('@alice'), baseUrl: t.url, decryptionKey: dk('@alice') }, { makeCurrent: true });
  store.set('acme', { apiKey: t.keyOf('@acme'), baseUrl: t.url, decryptionKey: dk('@acme') });
  store.set('work', { apiKey: FAKE_LIVE_KEY, baseUrl: t.url }); // a live key, as in the report
});
afterAll(async () => {
  await t?.close();
  await elsewhere?.close();
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
    const r = await runCli(['--yes', '--profile', 'work', 'account'], { env: { SVC_CONFIG_DIR: dir, SVC_BASE_URL: elsewhere.url } });
    expect(r.code).toBe(3); // the sandbox (the profile's own URL) refuses live keys
    expect(elsewhere.requests).toEqual([]);
  });

  it('a flag over everything: --base-url with a named profile', async () => {
    elsewhere.requests.length = 0;
    const r = await runCli(['--profile', 'acme', '--base-url', elsewhere.url, 'account'], { env: { SVC_CONFIG_DIR: dir } });
    expect(r.code).toBe(3);
    expect(elsewhere.requests.map((q) => q.headers.authorization)).toEqual([`Bearer ${t.keyOf('@acme')}`]);
    expect(await who(['--base-url', t.url], { SVC_BASE_URL: elsewhere.url })).toBe('@alice');
  });

  it('nothing at all: no key (exit 3), and the default base URL is the local sandbox', async () => {
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
