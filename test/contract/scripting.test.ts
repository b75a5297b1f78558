// Scripting details: help for a verb, idempotency keys a script can store, explicit policy list
// edits, flag-named --clear, profile add checking its key. All in-process against the sandbox.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';
import { answeringAccount, startScriptedServer, UNKNOWN_TEST_KEY } from '../helpers/scripted-server.js';

let t: TestSandbox;
const noSleep = { now: Date.now, sleep: async () => {} };

beforeAll(async () => {
  t = await startTestSandbox();
});
afterAll(async () => {
  await t?.close();
});

describe('svc help <noun> <verb>', () => {
  it('prints the help of the verb, not of the noun', async () => {
    const r = await t.svc(['help', 'transfer', 'send']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: svc transfer send \[options\] <to> <amount>/);
    expect(r.stdout).toContain('--idempotency-key');
    const noun = await t.svc(['help', 'transfer']);
    expect(noun.stdout).toMatch(/^Usage: svc transfer \[options\] \[command\]/);
    const three = await t.svc(['help', 'agent', 'policy', 'set']);
    expect(three.stdout).toMatch(/^Usage: svc agent policy set/);
    expect(three.stdout).toContain('--clear <flag>');
  });
  it('an unknown command is a usage error that names it', async () => {
    const r = await t.svc(['help', 'transfer', 'sned']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: unknown command "svc transfer sned" \(usage\)$/m);
  });
});

describe('transfer send and its idempotency key', () => {
  it('--json includes the idempotency_key it used; plain output does not print it on success', async () => {
    const j = await t.svc(['--json', 'transfer', 'send', '@acme', '1']);
    expect(j.code).toBe(0);
    const doc = JSON.parse(j.stdout) as { transfer_id: string; idempotency_key: string };
    expect(doc.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    // The stored key replays the same transfer: a script's safe retry.
    const again = JSON.parse((await t.svc(['--json', 'transfer', 'send', '@acme', '1', '--idempotency-key', doc.idempotency_key])).stdout) as { transfer_id: string; idempotency_key: string };
    expect(again.transfer_id).toBe(doc.transfer_id);
    expect(again.idempotency_key).toBe(doc.idempotency_key);
    const plain = await t.svc(['transfer', 'send', '@acme', '1']);
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toMatch(/idempotency/i);
    expect(plain.stdout).not.toMatch(/idempotency/i);
  });

  it('a definite failure (4xx) does not print the key', async () => {
    const r = await t.svc(['transfer', 'send', '@nobody-here', '1']);
    expect(r.code).toBe(4);
    expect(r.stderr).not.toMatch(/idempotency/i);
    const j = await t.svc(['--json', 'transfer', 'send', '@nobody-here', '1']);
    expect(JSON.parse(j.stderr).error.idempotency_key).toBeUndefined();
  });

  it('an unknown outcome (5xx after retries, no answer) prints the key and the exact retry command, without the amount', async () => {
    const s = await startScriptedServer(answeringAccount(() => ({ status: 503, body: { error: { code: 'unavailable', message: 'try later' } } })));
    try {
      const env = { SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-uncertain-')), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: s.url };
      const r = await runCli(['transfer', 'send', '@acme', '731.259468', '--asset', 'USDC', '--memo', 'rent'], { env, clock: noSleep });
      expect(r.code).toBe(1);
      const keys = new Set(s.requests.filter((q) => q.method === 'POST').map((q) => q.headers['idempotency-key']));
      expect(keys.size).toBe(1); // the same key on every try
      const [key] = [...keys] as string[];
      expect(r.stderr).toMatch(/^hint: the transfer may or may not have been made; retry safely/m);
      expect(r.stderr).toContain(`svc transfer send @acme <amount> --asset USDC --memo <memo> --idempotency-key ${key}`);
      expect(r.stderr).not.toContain('731.259468');
      expect(r.stderr).not.toContain('rent');
      const j = await runCli(['--json', 'transfer', 'send', '@acme', '1', '--idempotency-key', 'mine-1'], { env, clock: noSleep });
      expect(j.stdout).toBe('');
      expect(JSON.parse(j.stderr).error).toMatchObject({ code: 'unavailable', status: 503, idempotency_key: 'mine-1' });
    } finally {
      await s.close();
    }
  });
});

describe('agent policy set: explicit list edits and flag-named --clear', () => {
  beforeAll(async () => {
    const r = await t.svc(['agent', 'create', 'lists', '--allow', '@acme', '--allow', '@bob', '--per-tx-limit', '50', '--active-hours', '08:00-18:00']);
    expect(r.code, r.stderr).toBe(0);
  });
  const policy = async () => JSON.parse((await t.svc(['--json', 'agent', 'policy', 'get', 'lists'])).stdout) as Record<string, unknown>;

  it('--add-allow and --remove-allow edit the list; the diff shows it', async () => {
    const r = await t.svc(['agent', 'policy', 'set', 'lists', '--add-allow', '*.vendors.example', '--remove-allow', '@BOB']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('allowed_recipients: @acme, @bob → @acme, *.vendors.example');
    expect((await policy()).allowed_recipients).toEqual(['@acme', '*.vendors.example']);
  });

  it('--allow replaces the whole list and says so', async () => {
    const r = await t.svc(['agent', 'policy', 'set', 'lists', '--allow', '@oldwallet']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('note: --allow replaces the whole recipient list');
    expect((await policy()).allowed_recipients).toEqual(['@oldwallet']);
  });

  it('refuses ambiguous or impossible edits before sending anything', async () => {
    const before = await policy();
    const cases: Array<[string[], RegExp]> = [
      [['--allow', '@acme', '--add-allow', '@bob'], /do not combine them with --allow/],
      [['--remove-allow', '@nobody'], /--remove-allow "@nobody" is not in the recipient list/],
      [['--add-allow', 'not a pattern'], /--add-allow "not a pattern"/],
      [['--clear', 'allow', '--allow', '@acme'], /do not combine|contradicts/],
      [['--clear', 'bogus'], /--clear bogus: not a policy flag \(known: daily-limit, per-transaction-limit, approval-threshold, allow, asset, active-hours, approvals-required\)/],
    ];
    for (const [flags, message] of cases) {
      const r = await t.svc(['agent', 'policy', 'set', 'lists', ...flags]);
      expect(r.code, flags.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(await policy()).toEqual(before);
  });

  it('--clear takes the flag name (or the field name) and removes the restriction: the field is omitted, never null', async () => {
    const r = await t.svc(['agent', 'policy', 'set', 'lists', '--clear', 'per-tx-limit', '--clear', 'active_hours']);
    expect(r.code, r.stderr).toBe(0);
    const p = await policy();
    expect(p).not.toHaveProperty('per_transaction_limit_usdc');
    expect(p).not.toHaveProperty('active_hours');
    expect(Object.values(p)).not.toContain(null);
  });

  it('--add-allow on an agent that may pay anyone is refused (it would restrict it to one)', async () => {
    expect((await t.svc(['agent', 'create', 'open'])).code).toBe(0);
    const r = await t.svc(['agent', 'policy', 'set', 'open', '--add-allow', '@acme']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/may pay anyone today/);
  });
});

describe('profile add checks the key against the service', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'svc-profile-verify-'));

  it('a working key: saved, and the account handle is shown', async () => {
    const d = dir();
    const r = await runCli(['--base-url', t.url, 'profile', 'add', 'me', '--key-stdin'], { env: { SVC_CONFIG_DIR: d }, input: `${t.keyOf('@acme')}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/profile "me" saved for @acme/);
    const j = await runCli(['--json', '--base-url', t.url, 'profile', 'add', 'me2', '--key-stdin'], { env: { SVC_CONFIG_DIR: d }, input: `${t.keyOf('@acme')}\n` });
    expect(JSON.parse(j.stdout)).toMatchObject({ name: 'me2', handle: '@acme', verified: true, environment: 'test' });
  });

  it('a key the service refuses: exit 3, nothing saved', async () => {
    const d = dir();
    for (const json of [[], ['--json']]) {
      const r = await runCli([...json, '--base-url', t.url, 'profile', 'add', 'bad', '--key-stdin'], { env: { SVC_CONFIG_DIR: d }, input: `${UNKNOWN_TEST_KEY}\n` });
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/unauthorized/);
    }
    expect(existsSync(join(d, 'config.json')) ? JSON.parse(readFileSync(join(d, 'config.json'), 'utf8')).profiles ?? {} : {}).toEqual({});
  });

  it('an unreachable service: exit 7, nothing saved; --no-verify saves without asking', async () => {
    const d = dir();
    const down = 'http://127.0.0.1:9';
    const r = await runCli(['--base-url', down, 'profile', 'add', 'later', '--key-stdin'], { env: { SVC_CONFIG_DIR: d }, input: `${UNKNOWN_TEST_KEY}\n`, clock: noSleep });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/nothing was saved/);
    expect(r.stderr).toMatch(/^hint: .*--no-verify/m);
    const ok = await runCli(['--base-url', down, 'profile', 'add', 'later', '--key-stdin', '--no-verify'], { env: { SVC_CONFIG_DIR: d }, input: `${UNKNOWN_TEST_KEY}\n` });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/profile "later" saved \(key not checked: --no-verify\)/);
    expect(JSON.parse(readFileSync(join(d, 'config.json'), 'utf8')).profiles.later.baseUrl).toBe(down);
  });
});
