// Issue 25, "Getting an agent's key in", for `svc profile add`: a test key without --base-url
// takes the base URL of this config dir's sandbox (the running one first, from the record `sandbox
// start` leaves; else its profile), never a fixed port, and says which; a live key still has no
// default. Replacing a profile keeps what is not replaced (its decryption key, when it is still
// the account's) and says what changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type RunResult, type TestSandbox } from '../../helpers/e2e.js';
import { ProfileStore } from '../../../src/config/profiles.js';
import { recordRunning } from '../../../src/config/sandbox-running.js';
import { DEFAULT_SANDBOX_URL } from '../../../src/domain/sandbox-address.js';
import { maskSecret } from '../../../src/config/mask.js';

function expectExit(r: RunResult, code: number): void {
  expect(r.code, `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(code);
}

const masked = maskSecret;

describe('profile add: the sandbox base URL, and replacing a profile', () => {
  let t: TestSandbox;
  const store = () => new ProfileStore(t.configDir);
  const newKey = async (handle: string) => {
    const r = await t.svc(['sandbox', 'key', 'create', '--account', handle]);
    expectExit(r, 0);
    return r.stdout.trim();
  };
  beforeAll(async () => {
    t = await startTestSandbox();
    // The sandbox listens on a port picked at start (port 0), not the default one.
    expect(t.url).not.toBe(DEFAULT_SANDBOX_URL);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a test key without --base-url takes the running sandbox\'s URL (from its record) and says so', async () => {
    // What `svc sandbox start --port 0` leaves in the config dir (this process stands in for it: alive).
    const forget = recordRunning(t.env, { url: t.url, profile: 'sandbox', ephemeral: false });
    try {
      const key = await newKey('@alice');
      const r = await t.svc(['profile', 'add', 'bot', '--key-stdin'], { input: `${key}\n` });
      expectExit(r, 0);
      expect(r.stderr).toContain(`base URL: ${t.url} (the running sandbox)\n`);
      expect(r.stderr).toContain('profile "bot" saved for @alice');
      expect(store().get('bot')?.baseUrl).toBe(t.url);
    } finally {
      forget();
    }
  });

  it('with no sandbox running, the URL of the sandbox profile (said so); a live key still has no default', async () => {
    const key = await newKey('@bob');
    const r = await t.svc(['profile', 'add', 'bob', '--key-stdin'], { input: `${key}\n` });
    expectExit(r, 0);
    expect(r.stderr).toContain(`base URL: ${t.url} (the sandbox profile "sandbox"; no sandbox runs now)\n`);
    expect(store().get('bob')?.baseUrl).toBe(t.url);
    const live = await t.svc(['profile', 'add', 'prod', '--key-stdin', '--no-verify'], { input: 'svc_live_Pr0fileLiveKeyZyXwVu987654\n' });
    expectExit(live, 2);
    expect(live.stderr).toMatch(/^error: a live API key has no default base URL: .*nothing was saved \(base_url_required\)/);
    expect(store().get('prod')).toBeUndefined();
  });

  it("replacing the API key with --key-stdin keeps the profile's decryption key (same account) and says what changed", async () => {
    const alice = t.sandbox.seeded.find((a) => a.handle === '@alice')!;
    const first = await newKey('@alice');
    expectExit(await t.svc(['--base-url', t.url, 'profile', 'add', 'me', '--key-stdin', '--decryption-key-stdin'], { input: `${first}\n${alice.decryptionKey}\n` }), 0);
    const second = await newKey('@alice');
    const r = await t.svc(['--base-url', t.url, 'profile', 'add', 'me', '--key-stdin'], { input: `${second}\n` });
    expectExit(r, 0);
    expect(store().get('me')).toMatchObject({ apiKey: second, decryptionKey: alice.decryptionKey });
    expect(r.stderr).toContain('profile "me" replaced for @alice');
    expect(r.stderr).toContain(`  API key: ${masked(first)} → ${masked(second)}\n`);
    expect(r.stderr).toContain(`  base URL: unchanged (${t.url})\n`);
    expect(r.stderr).toContain(`  decryption key: kept ${masked(alice.decryptionKey!)} (it matches the viewing key of @alice)\n`);
    expect(r.stderr).not.toContain(second);
    expect(r.stderr).not.toContain(alice.decryptionKey!);
    // --json says it too (added fields).
    const third = await newKey('@alice');
    const json = await t.svc(['--json', '--base-url', t.url, 'profile', 'add', 'me', '--key-stdin'], { input: `${third}\n` });
    expectExit(json, 0);
    expect(JSON.parse(json.stdout)).toMatchObject({ replaced: true, changes: { api_key: 'replaced', base_url: 'unchanged', decryption_key: 'kept' }, decryption_key: masked(alice.decryptionKey!) });
  });

  it("a key for another account does not keep the old account's decryption key, and says so", async () => {
    const bob = await newKey('@bob');
    const r = await t.svc(['--base-url', t.url, 'profile', 'add', 'me', '--key-stdin'], { input: `${bob}\n` });
    expectExit(r, 0);
    expect(store().get('me')?.decryptionKey).toBeUndefined();
    expect(r.stderr).toContain("  decryption key: removed: the saved one is not @bob's (give its own with --decryption-key-stdin)\n");
  });
});
