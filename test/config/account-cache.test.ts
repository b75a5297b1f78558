// A profile learns its account once: commands that need the account id (to open ciphertexts
// addressed to it) stop asking GET /v1/accounts/me, and nothing else ever uses the cached entry
// (another key, another base URL, SVC_API_KEY).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await startTestSandbox();
});
afterAll(() => t.close());

const meRequests = (stderr: string) => stderr.split('\n').filter((l) => /^> GET \S+\/v1\/accounts\/me$/.test(l)).length;
const profile = () => (JSON.parse(readFileSync(join(t.configDir, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, unknown>> }).profiles.sandbox!;

describe('the account cache in a profile', () => {
  it('the first balance asks who the key belongs to and remembers it; the next ones do not ask', async () => {
    expect(profile().account).toBeUndefined();
    const first = await t.svc(['--verbose', '--json', 'balance']);
    expect(first.code, first.stderr).toBe(0);
    expect(meRequests(first.stderr)).toBe(1);
    const cached = profile().account as Record<string, string>;
    expect(cached).toMatchObject({ handle: '@alice', account_id: expect.stringMatching(/^acct_/) });
    // The entry names the key by a hash: the key itself is stored once, as apiKey.
    expect(JSON.stringify(cached)).not.toContain(t.keyOf('@alice'));

    const second = await t.svc(['--verbose', '--json', 'balance']);
    expect(second.code, second.stderr).toBe(0);
    expect(meRequests(second.stderr)).toBe(0);
    expect(second.stdout).toBe(first.stdout);
  });

  it('SVC_API_KEY (another account) never uses nor overwrites the profile\'s entry', async () => {
    const before = profile().account;
    const acme = await t.svc(['--verbose', '--json', 'balance'], { env: { SVC_API_KEY: t.keyOf('@acme'), SVC_DECRYPTION_KEY: t.sandbox.seeded.find((a) => a.handle === '@acme')!.decryptionKey! } });
    expect(acme.code, acme.stderr).toBe(0);
    expect(meRequests(acme.stderr)).toBe(1);
    expect(profile().account).toEqual(before);
  });

  it('a --base-url for this run ignores the entry learnt with the profile\'s own URL', async () => {
    const r = await t.svc(['--verbose', '--json', '--base-url', t.url.replace('127.0.0.1', 'localhost'), 'balance']);
    expect(r.code, r.stderr).toBe(0);
    expect(meRequests(r.stderr)).toBe(1);
  });

  it('profile add, with the key checked, learns the account at once', async () => {
    const add = await t.svc(['profile', 'add', 'bob', '--key-stdin', '--base-url', t.url], { input: `${t.keyOf('@bob')}\n` });
    expect(add.code, add.stderr).toBe(0);
    const stored = (JSON.parse(readFileSync(join(t.configDir, 'config.json'), 'utf8')) as { profiles: Record<string, { account?: { handle: string } }> }).profiles.bob!;
    expect(stored.account?.handle).toBe('@bob');
  });
});
