// Where there is no OS keyring (no session bus, a bus that never answers, a native module that
// does not load): SVC_CREDENTIAL_STORE=auto (the default) keeps secrets in config.json with one
// warning per profile, `keyring` refuses (keyring_unavailable, exit 1, nothing written), and a
// profile whose secrets are in the keyring says why it cannot be read. No real keyring here: the
// tests against one are in keyring.test.ts.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { startTestSandbox } from '../../helpers/e2e.js';
import { openKeyring } from '../../../src/config/credentials/keyring.js';

const KEY = 'svc_test_abcdefghijklmnopqrstuvwxyz012345';
const add = (dir: string, name: string, env: Record<string, string | undefined> = {}) =>
  runCli(['--base-url', 'http://127.0.0.1:9', 'profile', 'add', name, '--key-stdin', '--no-verify'], { input: `${KEY}\n`, env: { SVC_CONFIG_DIR: dir, NO_COLOR: '1', ...env } });
const fresh = () => mkdtempSync(join(tmpdir(), 'svc-fallback-'));
/** No session bus: no address, no $XDG_RUNTIME_DIR/bus; the default store (auto). */
const noBus = { SVC_CREDENTIAL_STORE: undefined, DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: undefined };

describe('no session bus', () => {
  it('auto: the secrets go to config.json with one warning that names the file and the fix; later commands do not warn', async () => {
    const dir = fresh();
    const first = await add(dir, 'work', noBus);
    expect(first.code, first.stderr).toBe(0);
    const file = join(dir, 'config.json');
    const warning = `warning: no OS keyring: there is no D-Bus session bus (a headless, SSH or WSL session: DBUS_SESSION_BUS_ADDRESS is not set); the secrets of profile "work" are stored in ${file} (mode 0600) instead.`;
    expect(first.stderr.split('\n')[0]).toMatch(new RegExp(`^${warning.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} To use a keyring: .*gnome-keyring.*; then run \`svc profile migrate work --to keyring\`\\.$`));
    expect(first.stderr.match(/warning:/g)).toHaveLength(1);
    const config = JSON.parse(readFileSync(file, 'utf8'));
    expect(config.profiles.work).toEqual({ apiKey: KEY, baseUrl: 'http://127.0.0.1:9' });
    // Remembered: the profile is a file profile now; replacing it or using it asks no keyring again.
    const again = await add(dir, 'work', noBus);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('warning');
    const shown = await runCli(['--json', 'profile', 'show', 'work'], { env: { SVC_CONFIG_DIR: dir, ...noBus } });
    expect([shown.code, shown.stderr]).toEqual([0, '']);
    expect(JSON.parse(shown.stdout).secrets).toBe('file');
  });

  it('keyring: keyring_unavailable (exit 1) with the reason and the fix, and nothing written', async () => {
    const dir = fresh();
    const r = await add(dir, 'work', { ...noBus, SVC_CREDENTIAL_STORE: 'keyring' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: SVC_CREDENTIAL_STORE is keyring and the OS keyring cannot be used: there is no D-Bus session bus .* \(keyring_unavailable\)\nhint: .*dbus-run-session/);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    const json = await runCli(['--json', '--base-url', 'http://127.0.0.1:9', 'profile', 'add', 'work', '--key-stdin', '--no-verify'], { input: `${KEY}\n`, env: { SVC_CONFIG_DIR: dir, ...noBus, SVC_CREDENTIAL_STORE: 'keyring' } });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr).error.code).toBe('keyring_unavailable');
  });

  it('a bad SVC_CREDENTIAL_STORE is a usage error naming the variable', async () => {
    const r = await add(fresh(), 'work', { ...noBus, SVC_CREDENTIAL_STORE: 'vault' });
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([2, 'error: SVC_CREDENTIAL_STORE must be auto, keyring or file (invalid_credential_store)']);
  });

  describe('a keyring profile', () => {
    let dir: string;
    beforeAll(() => {
      dir = fresh();
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'work', profiles: { work: { baseUrl: 'http://127.0.0.1:9', secrets: 'keyring' } }, keyring_id: '0123456789abcdef0123456789abcdef' }), { mode: 0o600 });
    });

    it('cannot be used without its keyring (keyring_unavailable, exit 1, the reason and the fix); with SVC_API_KEY its secrets are not read at all', async () => {
      const r = await runCli(['account'], { env: { SVC_CONFIG_DIR: dir, ...noBus } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^error: the secrets of profile "work" are in the OS keyring and cannot be read: there is no D-Bus session bus .* \(keyring_unavailable\)\nhint: /);
      // The key from the environment: the keyring is not asked (it would fail as above).
      const t = await startTestSandbox();
      try {
        const viaEnv = await runCli(['--json', '--base-url', t.url, 'account'], { env: { SVC_CONFIG_DIR: dir, ...noBus, SVC_API_KEY: t.keyOf('@alice') } });
        expect([viaEnv.code, viaEnv.stderr]).toEqual([0, '']);
        expect(JSON.parse(viaEnv.stdout).handle).toBe('@alice');
      } finally {
        await t.close();
      }
    });

    it('profile ls lists it without its key; doctor says why and how to fix it', async () => {
      const ls = await runCli(['--json', 'profile', 'ls'], { env: { SVC_CONFIG_DIR: dir, ...noBus } });
      expect(ls.code).toBe(0);
      expect(JSON.parse(ls.stdout)).toEqual([{ name: 'work', current: true, environment: 'unknown', api_key: 'in the OS keyring (unreadable now)', base_url: 'http://127.0.0.1:9' }]);
      const doctor = await runCli(['--json', 'doctor'], { env: { SVC_CONFIG_DIR: dir, ...noBus } });
      const check = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === 'secrets');
      expect(check).toMatchObject({ status: 'fail', data: { setting: 'auto', keyring: 'no_session_bus', profiles: { work: 'keyring' } } });
      expect(check.detail).toContain('OS keyring: work; the keyring profiles cannot be read: there is no D-Bus session bus');
      expect(check.fix).toContain('dbus-run-session');
    });

    it("an SSH login with a keyring profile named `sandbox` in the config: profile add of a file profile works (exit 0), never 'a bug in svc' (70); a command that needs the keyring profile fails with keyring_unavailable", async () => {
      const ssh = fresh();
      writeFileSync(join(ssh, 'config.json'), JSON.stringify({ current: 'sandbox', profiles: { sandbox: { baseUrl: 'http://127.0.0.1:46630', secrets: 'keyring', sandbox: true } }, keyring_id: 'fedcba9876543210fedcba9876543210' }), { mode: 0o600 });
      const env = { SVC_CONFIG_DIR: ssh, NO_COLOR: '1', ...noBus };
      for (const store of ['file', undefined]) {
        const name = `work-${store ?? 'auto'}`;
        // No --base-url: a test key takes the sandbox's, which means looking at the sandbox profile.
        const r = await runCli(['profile', 'add', name, '--key-stdin', '--no-verify'], { input: `${KEY}\n`, env: { ...env, SVC_CREDENTIAL_STORE: store } });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).not.toContain('internal_error');
      }
      const config = JSON.parse(readFileSync(join(ssh, 'config.json'), 'utf8'));
      expect(config.profiles['work-file']).toEqual({ apiKey: KEY, baseUrl: 'http://127.0.0.1:46630' });
      const needs = await runCli(['--json', 'account'], { env });
      expect(needs.code).toBe(1);
      expect(JSON.parse(needs.stderr).error.code).toBe('keyring_unavailable');
    });
  });
});

describe('a session bus that accepts the connection and never answers', () => {
  let server: Server;
  let socket: string;
  const open: Socket[] = [];
  beforeAll(async () => {
    socket = join(mkdtempSync(join(tmpdir(), 'svc-hung-bus-')), 'bus');
    server = createServer((c) => {
      open.push(c); // accepts, reads nothing, answers nothing
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
  });
  afterAll(() => new Promise<void>((resolve) => {
    for (const c of open) c.destroy();
    server.close(() => resolve());
  }));

  it('auto falls back to config.json once the (shortened) timeout ran out, with the warning', async () => {
    const dir = fresh();
    const r = await add(dir, 'work', { ...noBus, DBUS_SESSION_BUS_ADDRESS: `unix:path=${socket}`, SVC_KEYRING_TIMEOUT_MS: '200' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^warning: no OS keyring: the Secret Service did not answer in time \(a hung D-Bus session\); the secrets of profile "work" are stored in /);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.work.apiKey).toBe(KEY);
  });

  it('keyring fails with keyring_unavailable', async () => {
    const dir = fresh();
    const r = await add(dir, 'work', { ...noBus, DBUS_SESSION_BUS_ADDRESS: `unix:path=${socket}`, SVC_KEYRING_TIMEOUT_MS: '200', SVC_CREDENTIAL_STORE: 'keyring' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the Secret Service did not answer in time (a hung D-Bus session) (keyring_unavailable)');
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('a native module that does not load', () => {
  it('is like no keyring at all (module_failed, with its error code), never a crash', async () => {
    const failing = () => Promise.reject(Object.assign(new Error('libsecret-1.so.0: cannot open shared object file'), { code: 'ERR_DLOPEN_FAILED' }));
    expect(await openKeyring({}, { timeoutMs: 100, load: failing, platform: 'darwin' })).toEqual({ unavailable: { reason: 'module_failed', detail: 'ERR_DLOPEN_FAILED' } });
    const missing = () => Promise.reject(new Error('Cannot find native binding'));
    expect(await openKeyring({}, { timeoutMs: 100, load: missing, platform: 'win32' })).toEqual({ unavailable: { reason: 'module_failed' } });
  });
});
