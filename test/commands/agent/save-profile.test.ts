// Issue 25, "Getting an agent's key in": `agent create <name> --save-profile <profile>` makes the
// agent, its API key (the sandbox's control API) and a 0600 profile holding both of its secrets,
// each shown once. A profile of that name is refused unless --force (the sandbox's own always);
// a service that cannot make agent keys is told apart before anything is created.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type RunResult, type TestSandbox } from '../../helpers/e2e.js';
import { svcIn } from '../../helpers/cli.js';
import { startScriptedServer } from '../../helpers/scripted-server.js';
import { ProfileStore } from '../../../src/config/profiles.js';

function expectExit(r: RunResult, code: number): void {
  expect(r.code, `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(code);
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('agent create --save-profile', () => {
  let t: TestSandbox;
  const agents = async () => (await t.svcJson<Array<{ handle: string }>>(['agent', 'ls'])).map((a) => a.handle);
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("makes the agent's key and saves a 0600 profile with both secrets, each shown once; the profile works at once", async () => {
    const r = await t.svc(['agent', 'create', 'payroll-bot', '--daily-limit', '500', '--save-profile', 'bot']);
    expectExit(r, 0);
    const saved = new ProfileStore(t.configDir).get('bot')!;
    expect(saved.apiKey).toMatch(/^svc_test_/);
    expect(saved.decryptionKey).toMatch(/^svc_dk_test_/);
    expect(saved.baseUrl).toBe(t.url);
    expect(statSync(join(t.configDir, 'config.json')).mode & 0o777).toBe(0o600);
    // Each secret once, on stderr (stdout: the record and its policy, for scripts).
    expect(count(r.stderr, saved.apiKey)).toBe(1);
    expect(count(r.stderr, saved.decryptionKey!)).toBe(1);
    expect(r.stdout).not.toContain(saved.apiKey);
    expect(r.stdout).not.toContain(saved.decryptionKey!);
    expect(r.stderr).toContain('saved profile "bot" for @alice/payroll-bot with its decryption key');
    // The current profile is still the owner's; the new one is the agent's.
    expect(new ProfileStore(t.configDir).current).toBe('sandbox');
    const who = await t.svcJson<{ handle: string }>(['--profile', 'bot', 'account']);
    expect(who.handle).toBe('@alice/payroll-bot');
    // Its decryption key reads its own balance.
    expectExit(await t.svc(['sandbox', 'fund', '@alice/payroll-bot', '12.5']), 0);
    const balance = await t.svc(['--profile', 'bot', 'balance']);
    expectExit(balance, 0);
    expect(balance.stdout).toMatch(/12\.5/);
  });

  it('--json: one document with the agent, its policy, the profile and both secrets', async () => {
    const doc = await t.svcJson<Record<string, any>>(['agent', 'create', 'json-bot', '--save-profile', 'json-bot']);
    const saved = new ProfileStore(t.configDir).get('json-bot')!;
    expect(doc).toMatchObject({ handle: '@alice/json-bot', profile: 'json-bot', api_key: saved.apiKey, decryption_key: saved.decryptionKey });
    expect(doc.spend_policy.policy_id).toBe(doc.spend_policy_id);
  });

  it('refuses an existing profile before creating anything; --force replaces it; the sandbox profile never', async () => {
    const before = new ProfileStore(t.configDir).get('bot')!;
    const refused = await t.svc(['agent', 'create', 'second-bot', '--save-profile', 'bot']);
    expectExit(refused, 2);
    expect(refused.stderr).toMatch(/^error: profile "bot" exists; refusing to replace it; nothing was created \(profile_exists\)\nhint: --force replaces it/);
    expect(await agents()).not.toContain('@alice/second-bot');
    expect(new ProfileStore(t.configDir).get('bot')).toEqual(before);

    const forced = await t.svc(['agent', 'create', 'second-bot', '--save-profile', 'bot', '--force']);
    expectExit(forced, 0);
    const after = new ProfileStore(t.configDir).get('bot')!;
    expect(after.apiKey).not.toBe(before.apiKey);
    expect((await t.svcJson<{ handle: string }>(['--profile', 'bot', 'account'])).handle).toBe('@alice/second-bot');

    const sandbox = await t.svc(['agent', 'create', 'third-bot', '--save-profile', 'sandbox', '--force']);
    expectExit(sandbox, 2);
    expect(sandbox.stderr).toMatch(/profile "sandbox" is the sandbox's own profile; refusing to replace it .*nothing was created \(profile_exists\)/);
    expect(await agents()).not.toContain('@alice/third-bot');

    const lone = await t.svc(['agent', 'create', 'fourth-bot', '--force']);
    expectExit(lone, 2);
    expect(lone.stderr).toMatch(/^error: --force replaces the profile named by --save-profile/);
    const badName = await t.svc(['agent', 'create', 'fifth-bot', '--save-profile', 'no spaces']);
    expectExit(badName, 2);
    expect(await agents()).not.toContain('@alice/fifth-bot');
  });

  it('a service that cannot make agent keys: unsupported_by_service (exit 1), nothing created or saved', async () => {
    const server = await startScriptedServer(() => ({ status: 500, body: { error: { code: 'unexpected', message: 'no request was expected' } } }));
    try {
      const r = await svcIn(['--base-url', server.url, 'agent', 'create', 'bot', '--save-profile', 'elsewhere'], { ...t.env, SVC_API_KEY: t.keyOf('@alice') });
      expectExit(r, 1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: --save-profile: http:\/\/127\.0\.0\.1:\d+ cannot make an agent's API key from the command line .*nothing was created \(unsupported_by_service\)\nhint: create the agent without --save-profile, make its key in the service's dashboard/);
      expect(server.requests).toEqual([]);
      expect(new ProfileStore(t.configDir).get('elsewhere')).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});

describe('agent create --save-profile when the sandbox makes the agent but not its key', () => {
  it('says the agent exists, shows its decryption key once (in the JSON error with --json), saves no profile', async () => {
    const dk = 'svc_dk_test_NotARealKeyButShapedLikeOne0123456789abcdef';
    const agent = { account_id: 'acc_9', handle: '@alice/half', public_key: `0x${'b'.repeat(40)}`, status: 'active', spend_policy_id: 'pol_9', decryption_key: dk };
    const server = await startScriptedServer((req) => {
      if (req.method === 'POST' && req.url === '/v1/accounts/me/agents') return { status: 201, body: agent };
      if (req.url === '/v1/agents/acc_9/spend-policy') return { status: 200, body: { policy_id: 'pol_9', updated_at: '2026-01-01T00:00:00Z' } };
      return { status: 403, body: { error: { code: 'forbidden', message: 'keys are off', request_id: 'req_1' } } };
    });
    const configDir = mkdtempSync(join(tmpdir(), 'svc-half-'));
    try {
      const store = new ProfileStore(configDir);
      const ownerKey = 'svc_test_HalfOwnerKeyAbCdEf1234567890';
      await store.set('sandbox', { apiKey: ownerKey, baseUrl: server.url, sandboxAdminToken: 'tok', sandbox: true }, { makeCurrent: true });
      const env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
      const r = await svcIn(['agent', 'create', 'half', '--save-profile', 'half'], env);
      expectExit(r, 3);
      expect(count(r.stderr, dk)).toBe(1);
      expect(r.stderr).toMatch(/error: agent @alice\/half was created, but the sandbox did not make its API key: .*profile "half" was not saved \(forbidden/);
      expect(r.stderr).toContain('svc sandbox key create --account @alice/half');
      expect(new ProfileStore(configDir).get('half')).toBeUndefined();

      const json = await svcIn(['--json', 'agent', 'create', 'half', '--save-profile', 'half'], env);
      expectExit(json, 3);
      expect(json.stdout).toBe('');
      expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'forbidden', agent: '@alice/half', decryption_key: dk });
    } finally {
      await server.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});
