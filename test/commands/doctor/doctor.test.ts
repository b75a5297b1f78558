// `svc doctor` against the in-process sandbox and scripted servers: every check passing, then
// each one failing (or warning) on its own, the --json document, and the rules every command
// keeps (keys masked, server text sanitised, the key sent nowhere but its base URL).
import { chmodSync, chownSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFactory } from '../../../src/runtime/factory.js';
import { terminalPrompter } from '../../../src/io/prompter.js';
import { reportError } from '../../../src/cli/report.js';
import { runDoctor } from '../../../src/commands/doctor/run.js';
import { ProfileStore } from '../../../src/config/profiles.js';
import { createStreams } from '../../../src/io/streams.js';
import { generateViewingKey } from '../../../src/crypto/viewing-key.js';
import { runCli, virtualClock } from '../../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { DEFAULT_SANDBOX_PORT } from '../../../src/domain/sandbox-address.js';
import { ERROR, FAKE_LIVE_KEY, refusedPort, startConnectionRecorder, startScriptedServer, UNKNOWN_TEST_KEY } from '../../helpers/scripted-server.js';

interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  ok: boolean;
  detail: string;
  fix?: string;
  data?: Record<string, unknown>;
}
interface Report {
  ok: boolean;
  checks: Check[];
  summary: { ok: number; warn: number; fail: number; skip: number };
}

let t: TestSandbox;
const dirs: string[] = [];
beforeAll(async () => {
  t = await startTestSandbox();
});
afterAll(async () => {
  await t.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function freshDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-doctor-'));
  dirs.push(d);
  chmodSync(d, 0o700);
  return d;
}

/** A config dir holding one current profile, as `profile add` writes it. */
function configWith(profile: { apiKey: string; baseUrl: string; decryptionKey?: string }, name = 'p'): string {
  const dir = freshDir();
  new ProfileStore(dir).set(name, profile, { makeCurrent: true });
  return dir;
}

/** On a "terminal" 200 columns wide unless told: lines are matched whole, unwrapped. */
async function doctor(env: Record<string, string | undefined>, args: string[] = [], opts: { tty?: boolean; columns?: number } = {}) {
  return runCli([...args, 'doctor'], { env: { NO_COLOR: '1', ...env }, ...(opts.tty ? { tty: { stdout: true }, columns: opts.columns ?? 200 } : {}) });
}

async function doctorJson(env: Record<string, string | undefined>, args: string[] = []) {
  const r = await doctor(env, ['--json', ...args]);
  expect(r.stderr).toBe('');
  const report = JSON.parse(r.stdout) as Report;
  const by = (name: string) => report.checks.find((c) => c.name === name)!;
  return { ...r, report, by };
}

const alice = () => t.sandbox.seeded.find((a) => a.handle === '@alice')!;
const bob = () => t.sandbox.seeded.find((a) => a.handle === '@bob')!;

describe('svc doctor against the sandbox', () => {
  it('every check passes: one line each, exit 0', async () => {
    const r = await doctor(t.env, [], { tty: true });
    expect(r.stderr).toBe('');
    expect(r.code, r.stdout).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 12).map((l) => l.slice(0, 1))).toEqual(Array(12).fill('✓'));
    expect(lines.slice(0, 12).map((l) => l.slice(2, 16).trim())).toEqual([
      'Node.js', 'config dir', 'config file', 'secrets', 'profile', 'base URL', 'proxy', 'reachable', 'TLS', 'clock', 'API key', 'decryption key',
    ]);
    expect(r.stdout).toContain('sandbox (current) · TEST key svc_test_****');
    expect(r.stdout).toContain('accepted: @alice, personal account, KYC verified');
    expect(r.stdout).toMatch(/decryption key +svc_dk_test_\*\*\*\*\S{4} matches @alice's viewing key/);
    expect(r.stdout).toMatch(/All checks passed\.\n$/);
    // Never a key whole.
    expect(r.stdout).not.toContain(t.keyOf('@alice'));
    expect(r.stdout).not.toContain(alice().decryptionKey!);
    expect(r.stdout).not.toContain(t.sandbox.adminToken);
  });

  it('--json: one document with every check (name, status, ok, detail, fix, data) and a summary', async () => {
    const { code, report, by } = await doctorJson(t.env);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual(['node', 'config_dir', 'config_file', 'secrets', 'profile', 'base_url', 'proxy', 'reachable', 'tls', 'clock', 'api_key', 'decryption_key']);
    for (const c of report.checks) {
      expect(Object.keys(c).filter((k) => !['name', 'status', 'ok', 'detail', 'fix', 'data'].includes(k))).toEqual([]);
      expect(c).toMatchObject({ status: 'ok', ok: true, detail: expect.any(String) });
      expect(c.fix).toBeUndefined();
    }
    expect(report.summary).toEqual({ ok: 12, warn: 0, fail: 0, skip: 0 });
    expect(by('api_key').data).toEqual({ account: { account_id: expect.stringMatching(/^acct_/), handle: '@alice', type: expect.any(String), kyc_status: expect.any(String) } });
    expect(by('clock').data).toMatchObject({ skew_ms: expect.any(Number), warn_above_ms: 30_000, fail_above_ms: 300_000 });
    expect(Math.abs(by('clock').data!.skew_ms as number)).toBeLessThan(2_000);
    expect(by('profile').data).toMatchObject({ profile: 'sandbox', source: 'current', environment: 'test', api_key: expect.stringMatching(/^svc_test_\*\*\*\*/) });
    expect(by('decryption_key').data).toMatchObject({ present: true, matches: true, checked_by: 'viewing_public_key' });
    expect(JSON.stringify(report)).not.toContain(t.keyOf('@alice'));
  });

  it('piped (not a terminal) it prints the same lines, without colour', async () => {
    // Colour is on for stderr (a terminal, no NO_COLOR): stdout, a pipe, still gets none.
    const r = await runCli(['doctor'], { env: { SVC_CONFIG_DIR: t.configDir }, tty: { stderr: true } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^✓ Node\.js {9}v\d+/);
    expect(r.stdout).not.toContain('\u001b[');
  });

  it('the key goes to the base URL only: a keyless probe, then GET /v1/accounts/me with the key', async () => {
    const seen: Array<{ url: string; auth?: string }> = [];
    const s = await startScriptedServer((req) => {
      seen.push({ url: req.url, ...(req.headers.authorization ? { auth: req.headers.authorization } : {}) });
      if (!req.headers.authorization) return { status: 401, body: ERROR('unauthorized', 'missing API key') };
      return { status: 200, body: { account_id: 'acct_x', handle: '@x', type: 'personal', public_key: '0x' + '1'.repeat(40), kyc_status: 'verified' } };
    });
    try {
      const { by } = await doctorJson({ SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: s.url });
      expect(by('api_key').status).toBe('ok');
      expect(seen).toEqual([{ url: '/v1/accounts/me' }, { url: '/v1/accounts/me', auth: `Bearer ${UNKNOWN_TEST_KEY}` }]);
    } finally {
      await s.close();
    }
  });
});

describe('each check failing', () => {
  it('no profile at all: profile ✗ with `svc sandbox start` / `svc profile add`; the rest skipped; exit 1', async () => {
    const r = await doctor({ SVC_CONFIG_DIR: join(freshDir(), 'none') }, [], { tty: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^✓ config dir .*not created yet/m);
    expect(r.stdout).toMatch(/^✗ profile +none: no profile is set up and SVC_API_KEY is not set$/m);
    expect(r.stdout).toMatch(/^ +fix: start the sandbox with `svc sandbox start`, or add a profile with `svc profile add <name>`/m);
    expect(r.stdout).toMatch(/^- reachable +skipped: no API key \(see profile\)$/m);
    expect(r.stdout).toMatch(/^- decryption key +skipped: no API key/m);
    expect(r.stdout).toMatch(/\n\n1 failed, 6 skipped: fix the first ✗, then run `svc doctor` again\.\n$/);
  });

  it('a named profile that does not exist', async () => {
    const { code, by } = await doctorJson(t.env, ['--profile', 'nope']);
    expect(code).toBe(1);
    expect(by('profile')).toMatchObject({ status: 'fail', ok: false, detail: 'profile "nope" does not exist (named by --profile)', fix: 'run `svc profile ls` to see your profiles' });
  });

  it('config dir and file with loose modes: ✗ with the chmod to run', async () => {
    const dir = configWith({ apiKey: t.keyOf('@alice'), baseUrl: t.url });
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'config.json'), 0o644);
    const { code, by } = await doctorJson({ SVC_CONFIG_DIR: dir });
    expect(code).toBe(1);
    expect(by('config_dir')).toMatchObject({ status: 'fail', detail: `${dir} (SVC_CONFIG_DIR): mode 0755, should be 0700 (yours alone)`, fix: `chmod 700 ${dir}` });
    expect(by('config_file')).toMatchObject({ status: 'fail', detail: 'config.json: mode 0644, should be 0600 (it holds your keys)', fix: `chmod 600 ${join(dir, 'config.json')}` });
    // Modes are a fix to make, not a reason to stop: the profile still reads, the key still works.
    expect(by('api_key').status).toBe('ok');
    chmodSync(dir, 0o700);
    chmodSync(join(dir, 'config.json'), 0o600);
    expect((await doctorJson({ SVC_CONFIG_DIR: dir })).by('config_file')).toMatchObject({ status: 'ok', detail: 'config.json: yours, mode 0600, 1 profile' });
  });

  it('a symlinked config file or directory: ✗ as every command refuses it; what needs it is skipped', async () => {
    const real = configWith({ apiKey: t.keyOf('@alice'), baseUrl: t.url });
    const linkedFile = freshDir();
    symlinkSync(join(real, 'config.json'), join(linkedFile, 'config.json'));
    const a = await doctorJson({ SVC_CONFIG_DIR: linkedFile });
    expect(a.code).toBe(1);
    expect(a.by('config_file')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/config\.json is a symbolic link; refusing to read or write keys through it$/) });
    expect(a.by('profile')).toMatchObject({ status: 'skip', ok: false, detail: expect.stringMatching(/^skipped: the config cannot be read safely/) });
    expect(a.by('api_key').status).toBe('skip');

    const linkedDir = join(freshDir(), 'link');
    symlinkSync(real, linkedDir);
    const b = await doctorJson({ SVC_CONFIG_DIR: linkedDir });
    expect(b.by('config_dir')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/is a symbolic link/), fix: expect.stringMatching(/real directory/) });
    expect(b.by('config_file')).toMatchObject({ status: 'skip', detail: 'skipped: the config directory is refused (see config dir)' });
  });

  it.skipIf(process.getuid?.() !== 0)('a config file of another user: ✗ (needs root to make one)', async () => {
    const dir = configWith({ apiKey: t.keyOf('@alice'), baseUrl: t.url });
    chownSync(join(dir, 'config.json'), 4321, 4321);
    const { code, by } = await doctorJson({ SVC_CONFIG_DIR: dir });
    expect(code).toBe(1);
    expect(by('config_file')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/belongs to another user \(uid 4321\)/), fix: expect.stringContaining('SVC_CONFIG_DIR') });
    expect(by('profile').status).toBe('skip');
  });

  it('a bad --timeout is a usage error (exit 2), before any check', async () => {
    const r = await doctor(t.env, ['--timeout', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: --timeout "soon" must be a duration/);
  });

  it('a config file that is not JSON', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'config.json'), '{ nope', { mode: 0o600 });
    const { by } = await doctorJson({ SVC_CONFIG_DIR: dir });
    expect(by('config_file')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/is not valid JSON$/) });
  });

  it('a key the service refuses (401): ✗ with the server\'s words and the hint; the decryption match is skipped', async () => {
    const dir = configWith({ apiKey: UNKNOWN_TEST_KEY, baseUrl: t.url, decryptionKey: alice().decryptionKey! });
    const r = await doctor({ SVC_CONFIG_DIR: dir }, [], { tty: true });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^✓ reachable +127\.0\.0\.1:\d+ answered in \d+ms$/m);
    expect(r.stdout).toMatch(/^✗ API key +refused: invalid API key \(HTTP 401 unauthorized\)$/m);
    expect(r.stdout).toMatch(/^ +fix: the sandbox does not know this key: save a working one with `svc profile add <name>`/m);
    expect(r.stdout).toMatch(/^- decryption key +skipped: svc_dk_test_\*\*\*\*\S+ is well formed; matching it needs the account \(see API key\)$/m);
    expect(r.stdout).not.toContain(UNKNOWN_TEST_KEY);
  });

  it('a base URL where nothing listens: reachable ✗ (connection refused, start the sandbox); TLS, clock and key skipped', async () => {
    const port = await refusedPort();
    const { code, by } = await doctorJson({ SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: `http://127.0.0.1:${port}` });
    expect(code).toBe(1);
    expect(by('reachable')).toMatchObject({ status: 'fail', detail: `127.0.0.1:${port}: connection refused`, fix: 'is the sandbox running? start it with `svc sandbox start`' });
    expect(by('base_url')).toMatchObject({ status: 'ok', detail: `http://127.0.0.1:${port} (SVC_BASE_URL, this machine)` });
    for (const name of ['tls', 'clock', 'api_key']) expect(by(name).status, name).not.toBe('fail');
    expect(by('clock')).toMatchObject({ status: 'skip', detail: 'skipped: no answer from the service' });
    expect(by('api_key')).toMatchObject({ status: 'skip', detail: 'skipped: the service was not reached' });
  });

  it('a base URL over plain http to another host: base URL ✗ (the key would not be sent), network skipped', async () => {
    const { code, by } = await doctorJson({ SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: UNKNOWN_TEST_KEY }, ['--base-url', 'http://api.example.com']);
    expect(code).toBe(1);
    expect(by('base_url')).toMatchObject({ status: 'fail', detail: 'refusing to send an API key over plain HTTP to api.example.com (from --base-url)' });
    expect(by('reachable')).toMatchObject({ status: 'skip', detail: 'skipped: the base URL is not usable (see base URL)' });
  });

  it('a live key and no base URL: profile ✓, base URL ✗ (no default for a live key, what to set), network skipped; nothing connects', async () => {
    const listener = await startConnectionRecorder(DEFAULT_SANDBOX_PORT).catch(() => undefined); // where the default would point
    try {
      const { code, by, report } = await doctorJson({ SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: FAKE_LIVE_KEY });
      expect(code).toBe(1);
      expect(by('profile')).toMatchObject({ status: 'ok', detail: 'SVC_API_KEY (no profile) · LIVE key svc_live_****0000' });
      expect(by('base_url')).toEqual({
        name: 'base_url', status: 'fail', ok: false,
        detail: "none: a live API key has no default base URL: set --base-url, SVC_BASE_URL or the profile's base URL",
        fix: expect.stringContaining('svc_test_ keys only'),
        data: { source: 'none', error: 'base_url_required' },
      });
      for (const name of ['reachable', 'tls', 'clock', 'api_key']) expect(by(name)).toMatchObject({ status: 'skip', detail: 'skipped: the base URL is not usable (see base URL)' });
      expect(report.summary.fail).toBe(1);
      expect(listener?.connections ?? []).toEqual([]);
      const plain = await doctor({ SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: FAKE_LIVE_KEY }, [], { tty: true });
      expect(plain.stdout).toMatch(/^✗ base URL +none: a live API key has no default base URL: set --base-url, SVC_BASE_URL or the profile's base URL\n +fix: /m);
    } finally {
      await listener?.close();
    }
  });

  it('a live key with a plain-http loopback base URL (a current profile\'s, with SVC_BASE_URL left over): base URL ✗ naming where it came from; no connection', async () => {
    const listener = await startConnectionRecorder();
    const own = await startScriptedServer(() => ({ status: 200, body: {} }), { tls: true });
    try {
      const dir = configWith({ apiKey: FAKE_LIVE_KEY, baseUrl: own.url }, 'prod');
      const { code, by } = await doctorJson({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: listener.url });
      expect(code).toBe(1);
      expect(by('base_url')).toMatchObject({
        status: 'fail',
        detail: `refusing to send a live API key over plain HTTP to ${new URL(listener.url).host}: a svc_live_ key goes over https:// only, even to this machine (from SVC_BASE_URL)`,
        fix: expect.stringMatching(/^set the service's https:\/\/ URL in --base-url, SVC_BASE_URL or the profile's base URL/),
        data: { url: listener.url, source: 'SVC_BASE_URL', error: 'insecure_base_url' },
      });
      expect(by('reachable').status).toBe('skip');
      expect(listener.connections).toEqual([]);
      expect(own.requests).toEqual([]);
      // Without the variable, the profile's own https URL: every network check passes (the doctor trusts the test certificate in process).
      const fine = await doctorJson({ SVC_CONFIG_DIR: dir });
      expect(fine.by('base_url')).toMatchObject({ status: 'ok', detail: `${own.url} (profile "prod", this machine)` });
      expect(fine.by('tls')).toMatchObject({ status: 'ok' });
    } finally {
      await listener.close();
      await own.close();
    }
  });

  it('--timeout bounds the whole run: a server that never answers fails reachable within it', async () => {
    const s = await startScriptedServer(() => 'hang');
    try {
      // The doctor ends (it would hang with the server otherwise) and says it gave up at the limit.
      const { by } = await doctorJson({ SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: s.url }, ['--timeout', '300ms']);
      expect(by('reachable')).toMatchObject({ status: 'fail', detail: `no answer from ${new URL(s.url).host} within the --timeout of 300ms` });
    } finally {
      await s.close();
    }
  });

  it('a clock far from the service\'s: ✗ beyond 5m, ! beyond 30s, ✓ within', async () => {
    let offsetMs = 0;
    const s = await startScriptedServer((req) => ({
      status: req.headers.authorization ? 200 : 401,
      headers: { date: new Date(Date.now() + offsetMs).toUTCString() },
      body: req.headers.authorization
        ? { account_id: 'acct_x', handle: '@x', type: 'personal', public_key: '0x' + '1'.repeat(40), kyc_status: 'verified' }
        : ERROR('unauthorized', 'missing API key'),
    }));
    try {
      const env = { SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: s.url };
      offsetMs = -2 * 3_600_000; // the service is two hours behind: this machine is ahead
      const far = await doctorJson(env);
      expect(far.code).toBe(1);
      expect(far.by('clock')).toMatchObject({ status: 'fail', detail: 'this machine is 2h ahead of the service\'s clock (over the 5m webhook tolerance)', fix: expect.stringMatching(/^sync this machine's clock/) });
      offsetMs = 90_000;
      const near = await doctorJson(env);
      expect(near.code).toBe(0);
      expect(near.by('clock')).toMatchObject({ status: 'warn', ok: true, detail: expect.stringMatching(/^this machine is 1m3[01]s behind the service's clock/) });
      offsetMs = 0;
      expect((await doctorJson(env)).by('clock').status).toBe('ok');
    } finally {
      await s.close();
    }
  });

  it('the sandbox\'s clock moved forward: a warning that says why, not a failure', async () => {
    const sb = await startTestSandbox();
    try {
      await sb.sandbox.advance(3 * 3_600_000);
      const { code, by } = await doctorJson(sb.env);
      expect(code).toBe(0);
      expect(by('clock')).toMatchObject({ status: 'warn', detail: 'the sandbox\'s clock is 3h ahead of this machine\'s', fix: expect.stringContaining('`svc sandbox clock advance`') });
    } finally {
      await sb.close();
    }
  });

  it('decryption key missing: a warning with how to add it (exit 0)', async () => {
    const dir = configWith({ apiKey: t.keyOf('@alice'), baseUrl: t.url });
    const { code, by } = await doctorJson({ SVC_CONFIG_DIR: dir });
    expect(code).toBe(0);
    expect(by('decryption_key')).toMatchObject({ status: 'warn', ok: true, detail: 'none set: balances, amounts and memos show as `encrypted`', fix: 'add it with `svc profile add <name> --decryption-key-stdin`, or set SVC_DECRYPTION_KEY' });
  });

  it('decryption key of another account, or of another environment, or mistyped: ✗', async () => {
    const other = await doctorJson({ ...t.env, SVC_DECRYPTION_KEY: bob().decryptionKey! });
    expect(other.code).toBe(1);
    expect(other.by('decryption_key')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^svc_dk_test_\*\*\*\*\S{4} \(SVC_DECRYPTION_KEY\) is not @alice's: its public half is vpk1_/), fix: expect.stringMatching(/^set @alice's own decryption key/) });
    expect(JSON.stringify(other.report)).not.toContain(bob().decryptionKey!);

    const live = await doctorJson({ ...t.env, SVC_DECRYPTION_KEY: generateViewingKey('live').decryptionKey });
    expect(live.by('decryption_key')).toMatchObject({ status: 'fail', detail: 'SVC_DECRYPTION_KEY is a live key but the API key is test' });

    const typo = alice().decryptionKey!.slice(0, -3) + (alice().decryptionKey!.endsWith('AAA') ? 'BBB' : 'AAA');
    const bad = await doctorJson({ ...t.env, SVC_DECRYPTION_KEY: typo });
    expect(bad.by('decryption_key')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^SVC_DECRYPTION_KEY (fails its checksum|is not canonically encoded)/) });
  });

  it('without a viewing key from the service, the decryption key is matched by opening a balance', async () => {
    const sealed = await t.svcJson<Array<{ asset: string; ciphertext?: string; version?: number }>>(['balance']);
    const me = await t.svcJson<Record<string, unknown>>(['account']);
    const { viewing_public_key: _vpk, ...withoutVpk } = me;
    const s = await startScriptedServer((req) => {
      if (!req.headers.authorization) return { status: 401, body: ERROR('unauthorized', 'missing API key') };
      if (req.url === '/v1/accounts/me') return { status: 200, body: withoutVpk };
      return { status: 200, body: { balances: sealed.map(({ asset, ciphertext, version }) => ({ asset, nonzero: true, ciphertext, version })) } };
    });
    try {
      const env = { SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: t.keyOf('@alice'), SVC_BASE_URL: s.url };
      if (sealed.some((b) => b.ciphertext)) {
        const good = await doctorJson({ ...env, SVC_DECRYPTION_KEY: alice().decryptionKey! });
        expect(good.by('decryption_key')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/opens @alice's \w+ balance$/), data: { checked_by: 'balance', matches: true } });
        const wrong = await doctorJson({ ...env, SVC_DECRYPTION_KEY: bob().decryptionKey! });
        expect(wrong.by('decryption_key')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/is not @alice's: it does not open the \w+ balance$/) });
      }
    } finally {
      await s.close();
    }
  });

  it('proxy variables are shown (passwords masked) with the route the base URL takes', async () => {
    const proxy = 'http://me:s3cret@127.0.0.1:9';
    const loop = await doctorJson({ ...t.env, HTTPS_PROXY: proxy, NO_PROXY: '.corp.example', ALL_PROXY: 'socks5://127.0.0.1:1' });
    expect(loop.by('proxy')).toMatchObject({
      status: 'ok',
      detail: 'HTTPS_PROXY=http://me:****@127.0.0.1:9, NO_PROXY=.corp.example, ALL_PROXY=socks5://127.0.0.1:1 (ALL_PROXY is not used by svc); ' +
        `${new URL(t.url).host}: plain http: always direct`,
    });
    expect(loop.by('api_key').status).toBe('ok');
    expect(JSON.stringify(loop.report)).not.toContain('s3cret');

    // An https service through a proxy that refuses: shown as through the proxy, reachable ✗ naming the proxy.
    const port = await refusedPort();
    const via = await doctorJson({ SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: 'https://api.example.com', HTTPS_PROXY: `http://127.0.0.1:${port}` });
    expect(via.by('proxy')).toMatchObject({ status: 'ok', detail: `HTTPS_PROXY=http://127.0.0.1:${port}; api.example.com: through http://127.0.0.1:${port} (CONNECT tunnel)` });
    expect(via.by('reachable')).toMatchObject({ status: 'fail', detail: `the proxy 127.0.0.1:${port}: connection refused`, fix: expect.stringMatching(/NO_PROXY/) });

    const exempt = await doctorJson({ SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: `https://127.0.0.2:${port}`, HTTPS_PROXY: 'http://127.0.0.1:9' });
    expect(exempt.by('proxy').detail).toMatch(/127\.0\.0\.2:\d+: loopback: always direct$/);

    const socks = await doctorJson({ SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: 'https://api.example.com', HTTPS_PROXY: 'socks5://127.0.0.1:1080' });
    expect(socks.code).toBe(1);
    expect(socks.by('proxy')).toMatchObject({ status: 'fail', detail: 'HTTPS_PROXY is a socks5:// proxy; svc tunnels only through http:// or https:// proxies' });
    expect(socks.by('reachable')).toMatchObject({ status: 'skip', detail: 'skipped: the proxy setting is not usable (see proxy)' });

    const none = await doctorJson(t.env);
    expect(none.by('proxy').detail).toBe(`no proxy variables set: ${new URL(t.url).host} is reached directly`);
  });

  it('a named profile with SVC_* variables left in the shell: a warning that they are ignored, and they are', async () => {
    const recorder = await startScriptedServer(() => ({ status: 500 }));
    try {
      const { code, by } = await doctorJson({ ...t.env, SVC_BASE_URL: recorder.url, SVC_API_KEY: UNKNOWN_TEST_KEY }, ['--profile', 'sandbox']);
      expect(code).toBe(0);
      expect(by('profile')).toMatchObject({
        status: 'warn',
        detail: expect.stringMatching(/^sandbox \(--profile\) · TEST key svc_test_\*{4}\S{4}; SVC_API_KEY, SVC_BASE_URL are ignored \(a named profile is used whole\)$/),
        fix: 'unset SVC_API_KEY SVC_BASE_URL, or name no profile to let them apply',
      });
      expect(by('base_url').detail).toBe(`${t.url} (profile "sandbox", this machine)`);
      expect(by('api_key').detail).toMatch(/^accepted: @alice,/);
      expect(recorder.requests).toEqual([]);
    } finally {
      await recorder.close();
    }
  });

  it('--verbose shows the keyless probe and the keyed request, the key masked', async () => {
    const r = await runCli(['--verbose', 'doctor'], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^> GET http:\/\/127\.0\.0\.1:\d+\/v1\/accounts\/me \(no key: doctor's reachability probe\)$/m);
    expect(r.stderr).toMatch(/^> authorization: Bearer svc_test_\*{4}\S{4}$/m);
    expect(r.stderr + r.stdout).not.toContain(t.keyOf('@alice'));
  });

  it('on an 80-column terminal, long details and fixes wrap under their column, commands kept whole', async () => {
    const r = await doctor({ SVC_CONFIG_DIR: join(freshDir(), 'none') }, [], { tty: true, columns: 80 });
    const lines = r.stdout.split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines.filter((l) => l.includes('`')).every((l) => (l.match(/`/g) ?? []).length % 2 === 0)).toBe(true);
    expect(r.stdout).toMatch(/^ {18}fix: start the sandbox with `svc sandbox start`, or add a\n {23}profile with `svc profile add <name>`, or set SVC_API_KEY$/m);
  });

  it('the Node.js version is judged against engines (>=20.19): an older one fails', async () => {
    const run = async (nodeVersion: string) => {
      const out = new Collect();
      const io = createStreams({ stdin: Readable.from([]), stdout: out, stderr: new Collect(), env: t.env, tty: { stdout: false, stderr: false, stdin: false } });
      const f = createFactory({ io, env: t.env, globals: { json: true }, clock: virtualClock(), prompter: terminalPrompter(io) });
      const code = await runDoctor(f, { nodeVersion }).then(() => 0, (err: unknown) => reportError(io, err, { json: true, verbose: false }));
      return { code, report: JSON.parse(out.text) as Report };
    };
    const old = await run('v20.18.3');
    expect(old.code).toBe(1);
    expect(old.report.checks[0]).toMatchObject({ name: 'node', status: 'fail', detail: 'v20.18.3: svc needs 20.19 or later', fix: expect.stringMatching(/^install Node\.js 20\.19 or later/) });
    const current = await run('v22.1.0');
    expect(current.code).toBe(0);
    expect(current.report.checks[0]).toMatchObject({ name: 'node', status: 'ok', detail: 'v22.1.0 (svc needs 20.19 or later)' });
  });

  it('server text is sanitised: a handle with escape codes never reaches the terminal raw', async () => {
    const s = await startScriptedServer((req) => req.headers.authorization
      ? { status: 200, body: { account_id: 'acct_\u001b[2Jx', handle: '@evil\u001b]0;pwned\u0007', type: 'personal', public_key: '0x' + '1'.repeat(40), kyc_status: 'verified' } }
      : { status: 401, body: ERROR('unauthorized', 'missing API key') });
    try {
      const r = await doctor({ SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: s.url }, [], { tty: true });
      expect(r.stdout).toContain('accepted: @evil\\x1b]0;pwned\\x07, personal account');
      expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
      // And an error message: the 401's words, escaped, with the key it echoes masked.
      const refusing = await startScriptedServer(() => ({ status: 401, body: ERROR('unauthorized', `bad key ${UNKNOWN_TEST_KEY}\u001b[31m\u202e`) }));
      try {
        const r2 = await doctor({ SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: refusing.url }, [], { tty: true });
        expect(r2.stdout).toMatch(/^✗ API key +refused: bad key svc_test_\*{4}0000\\x1b\[31m\\u202e \(HTTP 401 unauthorized\)$/m);
        expect(r2.stdout).not.toContain(UNKNOWN_TEST_KEY);
        const j = await doctorJson({ SVC_CONFIG_DIR: freshDir(), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: refusing.url });
        expect(j.stdout).not.toContain(UNKNOWN_TEST_KEY);
        expect(j.stdout).not.toMatch(/[\u001b\u202e]/);
      } finally {
        await refusing.close();
      }
    } finally {
      await s.close();
    }
  });
});

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _e: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}
