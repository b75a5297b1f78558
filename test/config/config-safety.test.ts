// The config directory and config.json hold keys: a symbolic link (a write would land in its
// target, a chmod would change the target's mode) or a file of another user is refused, for
// reading and for writing, with a clear error, and nothing is touched.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-config-safety-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const KEY = 'svc_test_0123456789abcdef0123';
const add = (configDir: string) => runCli(['profile', 'add', 'x', '--key-stdin', '--no-verify'], { env: { SVC_CONFIG_DIR: configDir }, input: `${KEY}\n` });
const read = (configDir: string) => runCli(['account'], { env: { SVC_CONFIG_DIR: configDir } });

describe('config files that are not what they seem', () => {
  it('config.json as a symbolic link: refused for writing and reading; the target is untouched', async () => {
    const dir = join(root, 'cfg');
    mkdirSync(dir, { mode: 0o700 });
    const target = join(root, 'elsewhere.txt');
    writeFileSync(target, 'precious\n', { mode: 0o644 });
    symlinkSync(target, join(dir, 'config.json'));
    for (const r of [await add(dir), await read(dir)]) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: the config file .*config\.json is a symbolic link; refusing to read or write keys through it \(unsafe_config\)$/m);
    }
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    expect(statSync(target).mode & 0o777).toBe(0o644);
  });

  it('the config directory as a symbolic link: refused; the target directory keeps its mode', async () => {
    const real = join(root, 'real');
    mkdirSync(real, { mode: 0o755 });
    chmodSync(real, 0o755);
    const link = join(root, 'link');
    symlinkSync(real, link);
    for (const r of [await add(link), await read(link)]) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/the config directory .*link is a symbolic link/);
    }
    expect(statSync(real).mode & 0o777).toBe(0o755);
  });

  it.skipIf(process.getuid?.() !== 0)('a config file of another user: refused (needs root to make one)', async () => {
    const dir = join(root, 'cfg');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'x', profiles: { x: { apiKey: KEY, baseUrl: 'http://127.0.0.1:9' } } }), { mode: 0o600 });
    chownSync(join(dir, 'config.json'), 4321, 4321);
    const r = await read(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/belongs to another user \(uid 4321\)/);
  });

  it('a config file that is not JSON: a clear error, not a crash', async () => {
    const dir = join(root, 'cfg');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), '{ not json', { mode: 0o600 });
    const r = await read(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/config\.json is not valid JSON \(unsafe_config\)/);
  });
});
