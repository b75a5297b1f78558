// Secrets in a real Secret Service: a private session bus (dbus-run-session) with gnome-keyring
// unlocked in it, its keyring files in a temporary HOME; svc runs as a separate process against it
// (bin/svc.js: build first), and secret-tool says what the keyring holds. The rest of the suite
// runs without a bus (SVC_CREDENTIAL_STORE=file by default in the helpers).
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../helpers/e2e.js';
import { runSvc, spawnSandbox } from '../../helpers/run.js';
import { hasTool } from '../../helpers/tools.js';

const TOOLS = hasTool('dbus-run-session') && hasTool('gnome-keyring-daemon') && hasTool('secret-tool');

/** Every file under `dir`, as text. */
function everything(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'latin1'))
    .join('\n');
}

describe.skipIf(!TOOLS)('the OS keyring (a real Secret Service: gnome-keyring on a private session bus; skipped without dbus-run-session, gnome-keyring-daemon and secret-tool)', () => {
  let session: ChildProcessWithoutNullStreams;
  let bus: string;
  let home: string;
  let t: TestSandbox;
  let aliceKey: string;
  let aliceDk: string;
  const dir = mkdtempSync(join(tmpdir(), 'svc-keyring-'));
  const env = () => ({ SVC_CONFIG_DIR: dir, HOME: home, DBUS_SESSION_BUS_ADDRESS: bus, SVC_CREDENTIAL_STORE: undefined, NO_COLOR: '1' });
  const svc = (args: string[], input?: string, extra: Record<string, string | undefined> = {}) => runSvc(args, { ...env(), ...extra }, input === undefined ? {} : { input });
  const keyringId = () => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).keyring_id as string;
  /** What the keyring holds for a profile of this config dir (null: nothing). */
  const lookup = (profile: string, id = keyringId()): string | null => {
    const r = spawnSync('secret-tool', ['lookup', 'service', 'svc', 'username', `${id}/${profile}`], { env: { PATH: process.env.PATH, HOME: home, DBUS_SESSION_BUS_ADDRESS: bus }, encoding: 'utf8' });
    return r.status === 0 ? r.stdout : null;
  };
  const allEntries = (): string => {
    const r = spawnSync('secret-tool', ['search', '--all', 'service', 'svc'], { env: { PATH: process.env.PATH, HOME: home, DBUS_SESSION_BUS_ADDRESS: bus }, encoding: 'utf8' });
    return r.stdout + r.stderr;
  };

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'svc-keyring-home-'));
    // The session lives as long as `cat` reads our stdin: ending stdin ends the bus and the daemon.
    session = spawn('dbus-run-session', ['--', 'sh', '-c', 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; echo "BUS=$DBUS_SESSION_BUS_ADDRESS"; exec cat'], {
      env: { PATH: process.env.PATH, HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    bus = await new Promise<string>((resolve, reject) => {
      let out = '';
      session.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const m = /BUS=(\S+)\n/.exec(out);
        if (m) resolve(m[1]!);
      });
      session.on('exit', (code) => reject(new Error(`dbus-run-session exited ${code}`)));
    });
    t = await startTestSandbox();
    aliceKey = t.keyOf('@alice');
    aliceDk = t.sandbox.seeded.find((a) => a.handle === '@alice')!.decryptionKey!;
  });

  afterAll(async () => {
    await t?.close();
    session?.stdin.end();
  });

  it('profile add (auto): the API key and decryption key are in the keyring and nowhere in the config dir; commands use them', async () => {
    const added = await svc(['--base-url', t.url, 'profile', 'add', 'work', '--key-stdin', '--decryption-key-stdin'], `${aliceKey}\n${aliceDk}\n`);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).not.toContain('warning');
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(config.profiles.work).toEqual({ baseUrl: t.url, secrets: 'keyring', account: expect.any(Object) });
    expect(config.keyring_id).toMatch(/^[0-9a-f]{32}$/);
    expect(everything(dir)).not.toContain(aliceKey);
    expect(everything(dir)).not.toContain(aliceDk);
    expect(JSON.parse(lookup('work')!)).toEqual({ apiKey: aliceKey, decryptionKey: aliceDk });

    const account = await svc(['--json', 'account']);
    expect([account.code, account.stderr]).toEqual([0, '']);
    expect(JSON.parse(account.stdout).handle).toBe('@alice');
    const shown = await svc(['--json', 'profile', 'show']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'work', secrets: 'keyring', api_key: `svc_test_****${aliceKey.slice(-4)}`, decryption_key: expect.stringMatching(/^svc_dk_test_\*{4}/) });
    // The balance opens its ciphertexts with the decryption key from the keyring.
    const balance = await svc(['--json', 'balance']);
    expect([balance.code, balance.stderr]).toEqual([0, '']);
  });

  it('a command that only reads its secrets reads them over the bus in JavaScript: the native module is never loaded', async () => {
    const hook = join(home, 'modules-hook.cjs');
    const list = join(home, 'modules.txt');
    writeFileSync(hook, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join('\\n')));\n`);
    const r = await svc(['--json', 'balance'], undefined, { NODE_OPTIONS: `--require ${hook}` });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ asset: 'USDG', amount: expect.any(String) })]));
    const loaded = readFileSync(list, 'utf8');
    expect(loaded).toContain('modules-hook.cjs'); // the hook ran
    expect(loaded).not.toContain('@napi-rs');
  });

  it('profile migrate moves the secrets to config.json and back, leaving none behind', async () => {
    const toFile = await svc(['profile', 'migrate', 'work', '--to', 'file']);
    expect([toFile.code, toFile.stderr]).toEqual([0, 'profile "work": secrets moved from the OS keyring to config.json\n']);
    expect(lookup('work')).toBeNull();
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.work).toMatchObject({ apiKey: aliceKey, decryptionKey: aliceDk });
    expect((await svc(['account'])).code).toBe(0);

    const toKeyring = await svc(['--json', 'profile', 'migrate', '--to', 'keyring']);
    expect([toKeyring.code, toKeyring.stderr]).toEqual([0, '']);
    expect(JSON.parse(toKeyring.stdout)).toEqual([{ profile: 'work', from: 'file', to: 'keyring' }]);
    expect(JSON.parse(lookup('work')!)).toEqual({ apiKey: aliceKey, decryptionKey: aliceDk });
    expect(everything(dir)).not.toContain(aliceKey);
    expect(everything(dir)).not.toContain(aliceDk);
    expect((await svc(['account'])).code).toBe(0);
  });

  it('two config directories sharing the keyring never share an entry', async () => {
    const other = mkdtempSync(join(tmpdir(), 'svc-keyring-other-'));
    const bob = t.keyOf('@bob');
    const r = await svc(['--base-url', t.url, 'profile', 'add', 'work', '--key-stdin', '--no-verify'], `${bob}\n`, { SVC_CONFIG_DIR: other });
    expect(r.code, r.stderr).toBe(0);
    const otherId = JSON.parse(readFileSync(join(other, 'config.json'), 'utf8')).keyring_id as string;
    expect(otherId).not.toBe(keyringId());
    expect(JSON.parse(lookup('work', otherId)!).apiKey).toBe(bob);
    expect(JSON.parse(lookup('work')!).apiKey).toBe(aliceKey);
    expect((await svc(['profile', 'rm', 'work', '--yes'], undefined, { SVC_CONFIG_DIR: other })).code).toBe(0);
    expect(lookup('work', otherId)).toBeNull();
  });

  it('a copied config directory (cp -a) neither reads, replaces nor removes the original\'s entries; it says so, and migrate --own-keyring gives it entries of its own', async () => {
    const orig = mkdtempSync(join(tmpdir(), 'svc-keyring-orig-'));
    const copy = join(mkdtempSync(join(tmpdir(), 'svc-keyring-copy-')), 'cfg');
    const at = (d: string) => ({ SVC_CONFIG_DIR: d });
    const bob = t.keyOf('@bob');
    expect((await svc(['--base-url', t.url, 'profile', 'add', 'prod', '--key-stdin', '--no-verify'], `${aliceKey}\n`, at(orig))).code).toBe(0);
    const id = JSON.parse(readFileSync(join(orig, 'config.json'), 'utf8')).keyring_id as string;
    expect(spawnSync('cp', ['-a', orig, copy]).status).toBe(0);
    const refused = (r: { code: number | null; stderr: string }) => {
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`this config directory (${copy}) is a copy of ${orig}`);
      expect(r.stderr).toContain('(keyring_of_another_config)');
      expect(r.stderr).toContain('svc profile migrate --own-keyring');
    };
    // A command that needs the secrets: refused, nothing read.
    refused(await svc(['--profile', 'prod', 'account'], undefined, at(copy)));
    // profile rm in the copy: refused; the original's entry is still there.
    refused(await svc(['profile', 'rm', 'prod', '--yes'], undefined, at(copy)));
    expect(JSON.parse(lookup('prod', id)!).apiKey).toBe(aliceKey);
    // profile add prod in the copy (another account's key): refused; the original's prod is unchanged.
    refused(await svc(['--base-url', t.url, 'profile', 'add', 'prod', '--key-stdin', '--no-verify'], `${bob}\n`, at(copy)));
    expect(JSON.parse(lookup('prod', id)!).apiKey).toBe(aliceKey);
    expect(JSON.parse((await svc(['--json', '--profile', 'prod', 'account'], undefined, at(orig))).stdout).handle).toBe('@alice');
    // The fix the message names: the copy's own entries, the original's untouched.
    const own = await svc(['profile', 'migrate', '--own-keyring'], undefined, at(copy));
    expect([own.code, own.stderr]).toEqual([0, 'profile "prod": secrets copied into keyring entries of this directory\'s own\n']);
    const copyId = JSON.parse(readFileSync(join(copy, 'config.json'), 'utf8')).keyring_id as string;
    expect(copyId).not.toBe(id);
    expect(JSON.parse((await svc(['--json', '--profile', 'prod', 'account'], undefined, at(copy))).stdout).handle).toBe('@alice');
    expect((await svc(['profile', 'rm', 'prod', '--yes'], undefined, at(copy))).code).toBe(0);
    expect(lookup('prod', copyId)).toBeNull();
    expect(JSON.parse(lookup('prod', id)!).apiKey).toBe(aliceKey);
    // The original, renamed (same directory, same inode), is still itself.
    const moved = `${orig}-moved`;
    expect(spawnSync('mv', [orig, moved]).status).toBe(0);
    expect(JSON.parse((await svc(['--json', '--profile', 'prod', 'account'], undefined, at(moved))).stdout).handle).toBe('@alice');
    expect((await svc(['profile', 'rm', 'prod', '--yes'], undefined, at(moved))).code).toBe(0);
    expect(lookup('prod', id)).toBeNull();
  });

  it('profile rm removes the keyring entry with the profile: nothing is left in either place', async () => {
    const id = keyringId();
    expect(lookup('work', id)).not.toBeNull();
    const rm = await svc(['profile', 'rm', 'work', '--yes']);
    expect([rm.code, rm.stderr]).toEqual([0, 'removed profile "work"\n']);
    expect(lookup('work', id)).toBeNull();
    expect(allEntries()).not.toContain(`${id}/`);
    expect(everything(dir)).not.toContain(aliceKey);
  });

  it("the sandbox's own profile: its key, decryption key and admin token go to the keyring, and the admin commands read them there", async () => {
    const s = await spawnSandbox(['sandbox', 'start', '--port', '0', '--ephemeral'], env());
    try {
      expect(s.stderr()).not.toContain('warning');
      const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
      expect(config.profiles.sandbox).toEqual({ baseUrl: s.url, sandbox: true, secrets: 'keyring' });
      const held = JSON.parse(lookup('sandbox')!);
      expect(held).toEqual({ apiKey: expect.stringMatching(/^svc_test_/), decryptionKey: expect.stringMatching(/^svc_dk_test_/), sandboxAdminToken: expect.stringMatching(/^sbx_admin_/) });
      expect(everything(dir)).not.toContain(held.sandboxAdminToken);
      const fund = await svc(['sandbox', 'fund', '@bob', '5']);
      expect([fund.code, fund.stderr]).toEqual([0, 'funded @bob with 5.00 USDG\n']);
    } finally {
      await s.stop();
    }
  }, 60_000);
});
